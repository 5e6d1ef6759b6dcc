#!/usr/bin/env python3
"""Renders the chat templates of tests/fixtures/chat/<family>/tokenizer_config.json with Jinja2 the way
transformers' apply_chat_template does, for a fixed set of conversations, and writes the expected
prompt strings (or the template's own error) to tests/fixtures/chat/<family>/reference.json.
tests/tokenizer/test_chat_template.cpp compares the studio's ports against them.

    python3 scripts/reference/make_chat_template_references.py tests/fixtures/chat

Needs python3-jinja2 (Debian); the studio itself has no template engine.
"""
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers replaces Jinja's tojson (which sorts keys and escapes HTML) with this one.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def strftime_now(fmt):
    # A fixed day, so that templates that date their system turn (Llama 3.2) render reproducibly;
    # the test passes the same date to the port.
    return "26 Nov 2026"


CASES = [
    {"name": "single-user", "messages": [{"role": "user", "content": "Hello!"}]},
    {"name": "system-user", "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "What is 2+2?"}]},
    {"name": "multi-turn", "messages": [
        {"role": "user", "content": "First question"},
        {"role": "assistant", "content": "First answer"},
        {"role": "user", "content": "Second question"}]},
    {"name": "system-multi-turn", "messages": [
        {"role": "system", "content": "  Be brief.\n"},
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "Q2"}]},
    {"name": "no-generation-prompt", "add_generation_prompt": False, "messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]},
    {"name": "whitespace-around-content", "messages": [
        {"role": "user", "content": "  padded question \n\n"}]},
    {"name": "unicode-and-tabs", "messages": [
        {"role": "user", "content": "Explain 😀 in 中文\n\twith tabs"}]},
    {"name": "empty-content", "messages": [{"role": "user", "content": ""}]},
    {"name": "roles-not-alternating", "messages": [
        {"role": "user", "content": "one"}, {"role": "user", "content": "two"}]},
    {"name": "app11-prompt", "messages": [
        {"role": "user", "content": "[SYSTEM]\nYou are a careful assistant. Use only the provided "
                                    "context.\n[TASK]\nAnswer.\n[CONTEXT]\nThe key is 42.\n"
                                    "[QUESTION]\nWhat is the key?\n[CONSTRAINTS]\n"
                                    "Answer with the answer only.\n/no_think"}]},
]


def render(family_dir):
    config = json.load(open(os.path.join(family_dir, "tokenizer_config.json"), encoding="utf-8"))
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    template = env.from_string(config["chat_template"])
    special = {k: config[k] for k in ("bos_token", "eos_token") if config.get(k) is not None}
    out = []
    for case in CASES:
        kwargs = dict(special, messages=case["messages"],
                      add_generation_prompt=case.get("add_generation_prompt", True))
        entry = dict(case)
        try:
            entry["expected"] = template.render(**kwargs)
        except jinja2.exceptions.TemplateError as error:
            entry["error"] = str(error)
        out.append(entry)
    path = os.path.join(family_dir, "reference.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(out)} conversations -> {path}")


def main():
    root = sys.argv[1]
    for name in sorted(os.listdir(root)):
        if os.path.isfile(os.path.join(root, name, "tokenizer_config.json")):
            render(os.path.join(root, name))


if __name__ == "__main__":
    main()
