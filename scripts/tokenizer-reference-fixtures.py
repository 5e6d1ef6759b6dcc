#!/usr/bin/env python3
"""Writes small synthetic tokenizer.json files that exercise what Qwen3's file does not: a Llama 3
style file (Split with \\p{N}{1,3}, ignore_merges, "a b" string merges, a BOS template) and a
GPT-2/RoBERTa style file (ByteLevel with its own regex and add_prefix_space, offset trimming,
added tokens with lstrip, rstrip, single_word and normalized, an NFC normalizer). Their merges are
learned here from the reference corpus by plain BPE counting. Reference ids for them come from
Hugging Face's Rust library: node scripts/tokenizer-reference.js hf FILE CORPUS OUT.

    python3 scripts/tokenizer-reference-fixtures.py tests/fixtures/tokenizer
"""
import collections
import json
import os
import re
import sys


def byte_map():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


BYTES = byte_map()


def spell(text):
    return "".join(BYTES[b] for b in text.encode("utf-8"))


def learn_merges(texts, count):
    words = collections.Counter()
    for text in texts:
        for word in re.findall(r" ?\w+| ?[^\w\s]+|\s+", text):
            words[tuple(spell(word))] += 1
    merges = []
    for _ in range(count):
        pairs = collections.Counter()
        for word, n in words.items():
            for a, b in zip(word, word[1:]):
                pairs[(a, b)] += n
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        merged = collections.Counter()
        for word, n in words.items():
            out = []
            i = 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] += n
        words = merged
    return merges


def vocab_with(merges, extra=()):
    vocab = {}
    for b in range(256):
        vocab[BYTES[b]] = len(vocab)
    for a, b in merges:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    for token in extra:
        if token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def added(id_, content, special=True, lstrip=False, rstrip=False, single_word=False,
          normalized=False):
    return {"id": id_, "content": content, "single_word": single_word, "lstrip": lstrip,
            "rstrip": rstrip, "normalized": normalized, "special": special}


LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                  r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def llama3_like(merges):
    # A whole word that is in the vocabulary but cannot be reached by the merges shows what
    # ignore_merges changes.
    vocab = vocab_with(merges, extra=[spell("zyx"), spell(" qqq")])
    n = len(vocab)
    specials = [added(n, "<|begin_of_text|>"), added(n + 1, "<|end_of_text|>"),
                added(n + 2, "<|eot_id|>")]
    bos = {"id": "<|begin_of_text|>", "ids": [n], "tokens": ["<|begin_of_text|>"]}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": specials,
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN}, "behavior": "Isolated",
             "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
             "use_regex": False}]},
        "post_processor": {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
             "use_regex": True},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                        {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                      {"Sequence": {"id": "A", "type_id": 0}},
                      {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 1}},
                      {"Sequence": {"id": "B", "type_id": 1}}],
             "special_tokens": {"<|begin_of_text|>": bos}}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                  "vocab": vocab, "merges": [a + " " + b for a, b in merges]},
    }


def gpt2_like(merges):
    vocab = vocab_with(merges)
    n = len(vocab)
    tokens = [
        added(n, "<s>"), added(n + 1, "</s>"),
        added(n + 2, "<mask>", lstrip=True),
        added(n + 3, "[R]", special=False, rstrip=True),
        added(n + 4, "word", special=False, single_word=True),
        added(n + 5, "café", special=False, normalized=True),
        added(n + 6, "<both>", lstrip=True, rstrip=True),
    ]
    byte_level = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                  "use_regex": True}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": tokens,
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}]},
        "pre_tokenizer": byte_level,
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", n + 1], "cls": ["<s>", n],
                           "trim_offsets": True, "add_prefix_space": True},
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": False,
                  "byte_fallback": False, "vocab": vocab, "merges": [[a, b] for a, b in merges]},
    }


FEATURE_TEXTS = [
    ("mask-lstrip", "Hello   <mask> world and <mask>"),
    ("mask-start", "<mask>x"),
    ("rstrip", "a [R]   b [R]\n\nc[R]"),
    ("single-word-alone", "a word here"),
    ("single-word-inside", "swordfish words word_ word1 _word wordword"),
    ("single-word-edges", "word"),
    ("single-word-punct", "(word), word! «word»"),
    ("normalized-nfc", "un café"),
    ("normalized-nfd", "un cafe\u0301 et CAFE\u0301"),
    ("both-strips", "x  <both>  y <both><both>"),
    ("special-mix", "<s>text</s> </s><s>"),
    ("ignore-merges", "zyx zyxzyx qqq qqqq"),
    ("digits-groups", "1234567 12 123 1234 ١٢٣٤٥"),
    ("prefix-space", "no leading space"),
    ("leading-space", " leading space"),
    ("empty", ""),
    ("spaces-only", "   "),
    ("trailing-spaces", "trailing spaces   "),
    ("emoji", "ok 👍🏽 done"),
    ("multibyte", "naïve 中文 ελληνικά"),
    ("newlines", "a\n\nb\r\nc  \n d"),
]


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/tokenizer"
    corpus = [json.loads(line)["text"]
              for line in open(os.path.join(out_dir, "corpus.jsonl"), encoding="utf-8")]
    merges = learn_merges(corpus, 400)
    for name, config in [("llama3_like.json", llama3_like(merges)),
                         ("gpt2_like.json", gpt2_like(merges))]:
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            json.dump(config, f, ensure_ascii=False, indent=1)
            f.write("\n")
    with open(os.path.join(out_dir, "feature_corpus.jsonl"), "w", encoding="utf-8") as f:
        picked = [("corpus-%d" % i, corpus[i]) for i in range(0, len(corpus), 5)]
        for name, text in FEATURE_TEXTS + picked:
            f.write(json.dumps({"name": name, "text": text}, ensure_ascii=True) + "\n")
    print("wrote llama3_like.json, gpt2_like.json, feature_corpus.jsonl to", out_dir)


if __name__ == "__main__":
    main()
