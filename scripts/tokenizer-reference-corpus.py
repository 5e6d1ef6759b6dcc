#!/usr/bin/env python3
"""Writes the tokenizer reference corpus (tests/fixtures/tokenizer/corpus.jsonl): one JSON object
{"name": ..., "text": ...} per line, texts chosen to exercise every branch of the Qwen pre-tokenizer
pattern, NFC, added tokens and byte-level BPE. Deterministic: rerunning it rewrites the same file.
Reference ids for it come from scripts/tokenizer-reference.js."""
import json
import sys
import unicodedata

texts = []


def add(name, text):
    texts.append((name, text))


# --- English prose and contractions in several cases -------------------------------------------
add("prose", "The quick brown fox jumps over the lazy dog.")
add("prose-long", "It was the best of times, it was the worst of times, it was the age of wisdom, "
    "it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity.")
for i, c in enumerate(["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]):
    add(f"contraction-{i}", f"it{c} they{c} we{c.upper()} You{c.title()} x {c}{c}")
add("contractions-mixed", "I'm sure you'll see they'd've done it; DON'T, Won't, SHE'S, we'Re, I'M")
add("contractions-curly", "It’s John’s book, isn’t it? ‘quoted’ “double”")
add("contractions-edge", "'s 'S ''s 's's rock'n'roll '' ' ''' 'll've")
add("apostrophe-unicode", "l'été d'accord aujourd'hui c'est qu'il")
add("long-s", "'ſ and 'K (Kelvin) and 'ǅ")

# --- Code in several languages -------------------------------------------------------------------
add("python", "def fib(n: int) -> int:\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\n\nprint([fib(i) for i in range(10)])\n")
add("python-tabs", "class A:\n\tdef f(self):\n\t\treturn {'a': 1, \"b\": [2, 3]}  # comment\n")
add("cpp", "#include <vector>\n\ntemplate <typename T>\nT sum(const std::vector<T>& v) {\n  T s{};\n  for (auto& x : v) s += x;  // accumulate\n  return s;\n}\n")
add("rust", "fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * x).collect();\n    println!(\"{:?}\", v);\n}\n")
add("javascript", "const f = async (x) => { await fetch(`/api/${x}?q=1&r=2`); return x ?? null; };\n")
add("go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, 世界\")\n}\n")
add("sql", "SELECT u.id, COUNT(*) AS n FROM users u JOIN orders o ON o.user_id = u.id WHERE o.total > 100.50 GROUP BY u.id HAVING n >= 3;")
add("bash", "#!/usr/bin/env bash\nset -euo pipefail\nfor f in *.txt; do\n  wc -l \"$f\" | awk '{print $1}'\ndone 2>&1 | sort -n\n")
add("html", "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>T</title></head>\n<body><p class=\"x\">Hi &amp; bye</p></body></html>")
add("java", "public final class Main {\n    public static void main(String[] args) {\n        System.out.println(args.length > 0 ? args[0] : \"none\");\n    }\n}")
add("haskell", "main :: IO ()\nmain = mapM_ print $ takeWhile (< 100) [x * x | x <- [1 ..]]\n")
add("latex", "\\begin{equation}\n  E = mc^2 \\quad \\int_0^\\infty e^{-x^2} dx = \\frac{\\sqrt{\\pi}}{2}\n\\end{equation}")
add("regex-code", "re.compile(r\"(?i:'s|'t)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}\")")
add("minified", "function(a,b){return a.map(function(c){return c*b}).filter(Boolean)}")
add("operators", "a+=1;b-=2;c*=3;d/=4;e%=5;f**=6;g<<=7;h>>=8;i&&=j;k||=l;m??=n;=>->::...")
add("code-unicode-ident", "let naïve_π = 3.14159; const 变量 = \"值\"; int größe = 1;")

# --- Many scripts ----------------------------------------------------------------------------------
add("chinese", "我们在北京的天安门广场上看到了很多游客。人工智能正在改变世界。")
add("chinese-punct", "你好，世界！这是一个测试：（括号）【方括号】《书名号》……——")
add("japanese", "日本語のテキストです。ひらがなとカタカナ、そして漢字が混ざっています。")
add("japanese-halfwidth", "ｶﾀｶﾅ ﾃｽﾄ ｱｲｳｴｵ")
add("korean", "안녕하세요. 한국어 문장을 토큰화합니다. 대한민국 서울특별시")
add("arabic", "مرحبا بالعالم. هذه جملة باللغة العربية مع أرقام ١٢٣٤٥ وعلامات ترقيم؟")
add("arabic-diacritics", "بِسْمِ ٱللَّٰهِ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ")
add("hebrew", "שלום עולם! זהו משפט בעברית עם ניקוד: בְּרֵאשִׁית")
add("devanagari", "नमस्ते दुनिया। यह हिंदी में एक वाक्य है। संख्याएँ: १२३४")
add("thai", "สวัสดีชาวโลก ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ")
add("cyrillic", "Привет, мир! Съешь же ещё этих мягких французских булок, да выпей чаю.")
add("cyrillic-upper", "МОСКВА — СТОЛИЦА РОССИИ. Ёлка, ёж, Йод.")
add("greek", "Καλημέρα κόσμε! Ἐν ἀρχῇ ἦν ὁ λόγος. ΑΒΓΔ αβγδ")
add("armenian", "Բարեւ աշխարհ")
add("georgian", "გამარჯობა მსოფლიო")
add("tamil", "வணக்கம் உலகம்")
add("bengali", "হ্যালো বিশ্ব")
add("ethiopic", "ሰላም ልዑል")
add("tibetan", "བཀྲ་ཤིས་བདེ་ལེགས།")
add("mongolian", "ᠮᠣᠩᠭᠣᠯ ᠬᠡᠯᠡ ᠠ᠎ᠠ")
add("vietnamese", "Tiếng Việt có nhiều dấu: ắ ằ ẳ ẵ ặ ế ề ể ễ ệ")
add("mixed-scripts", "English 中文 日本語 한국어 العربية עברית हिन्दी ไทย Русский Ελληνικά")
add("rtl-mixed", "The word שלום means peace and مرحبا means hello.")
add("cjk-ext-b", "𠀀𠀁𠀂 𪚥 𩸽 𠮷野家")
add("math-symbols", "∀x∈ℝ: x²≥0 ∧ ∑ᵢ aᵢ ≤ ∞ ⇒ ∫f(x)dx ≈ π·r² ± ε")
add("math-alnum", "𝐀𝐁𝐂 𝑥𝑦𝑧 𝔸𝔹ℂ 𝟘𝟙𝟚")
add("box-drawing", "┌──┬──┐\n│ab│cd│\n└──┴──┘")
add("currency", "$100 €200 £300 ¥400 ₹500 ₿0.001 ₩1000")

# --- Emoji ---------------------------------------------------------------------------------------
add("emoji", "I love pizza 🍕 and tacos 🌮! 😀😃😄")
add("emoji-zwj", "Family: 👨‍👩‍👧‍👦 couple: 👩‍❤️‍💋‍👨 tech: 👩🏽‍💻 rainbow: 🏳️‍🌈")
add("emoji-flags", "Flags: 🇯🇵 🇺🇸 🇫🇷🇩🇪🇬🇧 🏴󠁧󠁢󠁳󠁣󠁴󠁿")
add("emoji-skin", "👍🏻 👍🏼 👍🏽 👍🏾 👍🏿 👋")
add("emoji-keycap", "1️⃣ 2️⃣ #️⃣ *️⃣ ©️ ®️ ™️")
add("emoji-run", "🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🚀🚀🚀")
add("emoji-text", "done✅ failed❌ warning⚠️ info ℹ️")

# --- Combining marks and normalization -----------------------------------------------------------
add("combining", "a\u0301 e\u0300 o\u0308 n\u0303 c\u0327")
add("zalgo", "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dA\u036b\u0357\u0334\u0362\u0335\u031c\u0330\u0354L\u0368\u0367\u0369\u0358\u0320G\u0311\u0357\u030e\u0305\u035b\u0341\u0334\u033b\u0348\u034d\u0354\u0339O\u0342\u030c\u030c\u0358\u0328\u0335\u0339\u033b\u031d\u0333")
for i, word in enumerate(["café", "naïve", "Ångström", "résumé", "Việt Nam", "ñandú", "Zürich", "façade"]):
    add(f"nfc-{i}", word + " " + word.upper())
    add(f"nfd-{i}", unicodedata.normalize("NFD", word + " " + word.upper()))
add("hangul-nfd", unicodedata.normalize("NFD", "한국어 텍스트"))
add("hangul-jamo", "\u1100\u1161\u11a8 \u1112\u1161\u11ab")
add("angstrom-sign", "\u212b \u2126 \u212a")  # singletons NFC rewrites
add("nfkc-only", "ﬁ ﬂ ① ㎞ ｆｕｌｌ ２０２４")
add("combining-order", "q\u0307\u0323 q\u0323\u0307 \u1e0b\u0323 d\u0323\u0307")
add("combining-alone", "\u0301start \u0301\u0301 x\u20dd")
add("variation-selectors", "漢\ufe00 ☺\ufe0f ☺\ufe0e")

# --- Whitespace ----------------------------------------------------------------------------------
add("spaces", "a  b   c    d     e")
add("tabs", "col1\tcol2\t\tcol3\t\t\tend\t")
add("newlines", "line1\nline2\n\nline3\n\n\nline4\n")
add("crlf", "line1\r\nline2\r\n\r\nline3\r\n")
add("cr-only", "a\rb\r\rc")
add("mixed-ws", " \t \n \r\n\t\t  \n x \t\n")
add("leading-trailing", "   padded both sides   ")
add("only-spaces", "        ")
add("only-newlines", "\n\n\n\n")
add("space-newline-space", " \n \n ")
add("unicode-spaces", "a\u00a0b\u2003c\u3000d\u2009e\u202ff\u205fg")
add("line-separators", "a\u2028b\u2029c\u0085d")
add("bom", "\ufeffBOM at start and \ufeff inside")
add("mongolian-vowel-sep", "a\u180eb \u180e c\u180e\u180e")
add("zero-width", "zero\u200bwidth\u200cnon\u200djoiner\u2060word")
add("vertical-tab-ff", "a\x0bb\x0cc")
add("control-chars", "nul\x00soh\x01bel\x07esc\x1bdel\x7f")
add("c1-controls", "a\x80b\x9fc")
add("indent-code", "        deeply\n            nested\n                code\n")
add("trailing-newline-spaces", "text   \n   \n")
add("empty", "")
add("single-space", " ")
add("single-char", "a")

# --- Digits and numbers --------------------------------------------------------------------------
add("digits", "0 1 2 3 4 5 6 7 8 9 10 100 1000 10000")
add("long-number", "3141592653589793238462643383279502884197169399375105820974944592")
add("numbers-formatted", "1,234,567.89 1.5e-10 0xDEADBEEF 0b1010 1_000_000 -42 +7 3/4")
add("dates", "2024-03-15T12:34:56Z 15/03/2024 March 15, 2024 12:00 PM")
add("phone", "+1 (555) 123-4567 ext. 89")
add("version", "v1.2.3-beta.4+build.567 Python 3.11.4")
add("other-numerals", "٠١٢٣٤٥٦٧٨٩ ०१२३ ๐๑๒ ① ² ¾ Ⅻ 〇 ２０２４")
add("digits-letters", "abc123def456 x1y2z3 3D 4K 5G")
add("ip", "192.168.0.1:8080 [::1]:443 fe80::1ff:fe23:4567:890a")

# --- Special tokens inside text ------------------------------------------------------------------
add("special-chat", "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n")
add("special-think", "<think>\nLet me think.\n</think>\n\nThe answer is 42.")
add("special-adjacent", "<|im_end|><|im_end|><|endoftext|>x<|im_start|>")
add("special-in-word", "abc<|im_end|>def <|endoftext|>ghi")
add("special-partial", "<|im_start <|im_end| |im_end|> <|im_end|| <|IM_END|>")
add("special-spaced", " <|im_end|> \n<|im_end|>\n <think> </think> ")
add("special-tools", "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call><tool_response>ok</tool_response>")
add("special-vision", "<|vision_start|><|image_pad|><|image_pad|><|vision_end|>Describe.")
add("special-fim", "<|fim_prefix|>def f(<|fim_suffix|>)\n<|fim_middle|>")
add("special-repo", "<|repo_name|>org/repo\n<|file_sep|>src/main.py\nprint(1)")
add("special-only", "<|endoftext|>")
add("angle-brackets", "<html> <|> <||> <|a|> << >> <= >= <=> </>")

# --- URLs, JSON, structured text -----------------------------------------------------------------
add("url", "https://example.com/path/to/page?query=value&other=123#fragment")
add("url-unicode", "https://ja.wikipedia.org/wiki/東京 http://xn--n3h.com/ mailto:user.name+tag@example.co.uk")
add("json", "{\"name\": \"Alice\", \"age\": 30, \"tags\": [\"a\", \"b\"], \"nested\": {\"x\": null, \"y\": true, \"z\": 1.5e3}}")
add("json-escapes", "{\"s\": \"line\\nbreak \\\"quoted\\\" \\u00e9 \\\\ slash\"}")
add("json-pretty", "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
add("csv", "id,name,score\n1,\"Smith, J.\",98.5\n2,Lee,87\n")
add("yaml", "key: value\nlist:\n  - item1\n  - item2\nnested:\n  inner: 'quoted'\n")
add("markdown", "# Title\n\n**Bold** and *italic* and `code` and [link](http://x.y).\n\n- a\n- b\n\n> quote\n\n```python\nx = 1\n```\n")
add("xml", "<?xml version=\"1.0\"?><root attr='v'><child/><![CDATA[raw <data>]]></root>")
add("email-header", "From: \"Jane Doe\" <jane@example.org>\nSubject: Re: [PATCH v2] fix\nDate: Mon, 1 Jan 2024 00:00:00 +0000")
add("path", "C:\\Users\\name\\Documents\\file.txt /usr/local/lib/python3.11/site-packages/")
add("hashes", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
add("base64", "SGVsbG8gV29ybGQhIFRoaXMgaXMgYmFzZTY0IGVuY29kZWQgdGV4dC4=")
add("uuid", "123e4567-e89b-12d3-a456-426614174000")

# --- tx_log lines --------------------------------------------------------------------------------
add("tx-log", "[TX001]: Transfer $107: A=4000 → 3893, B=4200 → 4307")
add("tx-log-block", "\n".join(f"[TX{i:03d}]: Transfer ${i * 37 % 500 + 1}: A={4000 - i * 11} → {4000 - i * 11 - (i * 37 % 500 + 1)}, B={4200 + i * 13} → {4200 + i * 13 + (i * 37 % 500 + 1)}" for i in range(1, 13)))
add("tx-log-question", "Question: after [TX012], what is the balance of A? Answer: A=3757")

# --- Punctuation and symbols ---------------------------------------------------------------------
add("punct-run", "!!!??? ... --- ___ *** ### $$$ %%% ^^^ &&& ((( ))) {{{ }}} [[[ ]]]")
add("punct-newline", "end.\n\n\nNext!\r\n?\n")
add("quotes", "\"double\" 'single' `back` «guillemets» „German“ 「Japanese」")
add("dashes", "en–dash em—dash minus−sign hyphen‐ figure‒ horizontal―bar")
add("ellipsis", "wait… what?! …really…")
add("symbols", "© ® ™ § ¶ † ‡ • ° ′ ″ ‰ ‱ ← → ↑ ↓ ↔ ⇐ ⇒")
add("punct-letters", "hello,world;foo:bar|baz/qux\\quux")
add("space-punct", " ! ? . , ; : ( ) [ ] { }")

# --- Repetitive and long inputs ------------------------------------------------------------------
add("repeat-a", "a" * 1000)
add("repeat-space", " " * 500)
add("repeat-newline", "\n" * 64)
add("repeat-digit", "1" * 300)
add("repeat-word", "the " * 200)
add("repeat-cjk", "的" * 200)
add("repeat-emoji", "😀" * 100)
add("repeat-dot", "." * 256)
add("repeat-tab", "\t" * 40)
add("repeat-pattern", "ab" * 300)
add("repeat-crlf", "\r\n" * 50)
add("repeat-space-x", " " * 100 + "x" + " " * 100)

# --- Mixed realistic documents -------------------------------------------------------------------
add("chat-like", "User: Can you help me write a function?\nAssistant: Sure! Here's an example:\n\n```js\nconst add = (a, b) => a + b;\n```")
add("wiki", "Albert Einstein (14 March 1879 – 18 April 1955) was a German-born theoretical physicist. He is best known for E = mc².")
add("legal", "§ 1. (a) The party of the first part (hereinafter \"Licensor\") grants... (ii) subject to Art. 12(3)(b).")
add("recipe", "Ingredients:\n• 2 cups flour\n• ½ tsp salt\n• 1¼ cups water (≈300 ml)\nBake at 180°C / 350°F for 25–30 min.")
add("poem", "Two roads diverged in a yellow wood,\nAnd sorry I could not travel both\nAnd be one traveler, long I stood")
add("tweet", "OMG!!! @user just posted #AI #MachineLearning 🤖🔥 https://t.co/abc123 lol 😂😂")
add("log-line", "2024-01-01 12:00:00,123 INFO [main] c.e.App - Started in 1.234s (pid=4567) user=\"root\"")
add("stack-trace", "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    1/0\nZeroDivisionError: division by zero")
add("diff", "--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,3 @@\n-int x = 1;\n+int x = 2;\n return x;")
add("niah", "The special magic number for the haystack is: 7391042. Remember it. What is the special magic number?")
add("multiling-sentence", "Der schnelle braune Fuchs; le renard brun rapide; el zorro marrón rápido; la volpe marrone veloce.")
add("turkish", "İstanbul'da ılık bir gün. IĞDIR ığdır İi Iı")
add("german-eszett", "Straße STRASSE ß ẞ Maß")
add("polish", "Zażółć gęślą jaźń")
add("icelandic", "Þetta er íslenska. Ð ð Þ þ Æ æ")
add("ligatures", "ﬀ ﬃ ﬄ Ǆ ǅ ǆ Ĳ ĳ")
add("fullwidth", "ＡＢＣ　ａｂｃ　！？　１２３")
add("superscripts", "x² + y³ = z⁴ H₂O CO₂ 10⁻⁶")
add("private-use", "\ue000\ue001 \U000f0000")
add("noncharacters", "\ufdd0 \ufffe \uffff")
add("replacement-char", "bad \ufffd bytes \ufffd\ufffd")
add("surrogate-range-neighbours", "\ud7ff \ue000")
add("max-codepoint", "\U0010fffd \U000e0001\U000e0041")
add("high-plane-letters", "𐌰𐌱𐌲 𓀀𓀁 𒀀 𞤀𞤁")
add("letter-apostrophe-number", "x's 1's 's1 'st 'tis")
add("newline-letters", "\nabc\n\ndef\n")
add("cr-letters", "\rabc\r\rdef")
add("punct-then-newlines", "...\n\n\n???\r\n\r\n")
add("space-before-newline", "a \nb  \nc\t\n")
add("letters-after-punct", "(hello) [world] {foo} <bar> \"baz\" 'qux'")
add("nbsp-word", "\u00a0word \u00a0\u00a0word")
add("digits-unicode-space", "1\u00a02\u20093\u30004")

# --- A generated spread: every script mixed with digits, punctuation and whitespace ---------------
samples = ["hello", "世界", "мир", "κόσμος", "עולם", "عالم", "दुनिया", "โลก", "세계", "🌍", "café", "x_y", "42", "3.14"]
seps = [" ", "  ", "\t", "\n", "\r\n", ", ", ": ", "-", "/", "'s ", "\u00a0", ""]
for i in range(60):
    parts = []
    for k in range(5):
        parts.append(samples[(i * 7 + k * 3) % len(samples)])
        parts.append(seps[(i + k * 5) % len(seps)])
    add(f"spread-{i:02d}", "".join(parts))

# --- SentencePiece-style vocabularies (Llama 2, Gemma 3): their added tokens, the metaspace
# character typed literally, text that looks like a byte token, characters outside the vocabulary
# (byte fallback), controls and spaces at either end -------------------------------------------
add("spm-bos-eos", "<s>Hello</s> <s> world</s><s>")
add("spm-unk", "<unk> and <unk><unk>x")
add("spm-gemma-turns", "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n")
add("spm-gemma-html", "<table><tr><td>1</td></tr></table> <h1>T</h1><strong>b</strong> <code>x</code>")
add("spm-metaspace-literal", "a\u2581b \u2581\u2581c \u2581")
add("spm-byte-token-text", "<0x41> <0xFF><0x0A> <0x4g>")
add("spm-leading-space", " leading")
add("spm-leading-spaces", "   three")
add("spm-trailing-spaces", "trail   ")
add("spm-only-spaces", "    ")
add("spm-tabs-newlines", "\t\tx\n\n\n\ny\t\n \n")
add("spm-rare-characters", "\U0001d518\U0001d52b\U0001d526 \ua66e \U000130c0 \U0001fae0 \u16a0\u16c7\u16bb \u2d30\u2d63\u2d53\u2d4d")
add("spm-fallback-inside-word", "x\U0001fae0y\u200bz\u2028w")
add("spm-controls", "a\u0000b\u0001c\u007f d\u001b[0m")
add("spm-digits", "1234567890 3.14159 1e-10 \u0661\u0662\u0663 0x1F")
add("spm-empty", "")

names = [n for n, _ in texts]
assert len(names) == len(set(names)), "duplicate names"
out = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/tokenizer/corpus.jsonl"
with open(out, "w", encoding="utf-8", newline="\n") as f:
    for name, text in texts:
        f.write(json.dumps({"name": name, "text": text}, ensure_ascii=True) + "\n")
print(f"{len(texts)} texts -> {out}")
