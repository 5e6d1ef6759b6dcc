#!/usr/bin/env python3
"""Renders Qwen3's chat template (from its tokenizer_config.json) with Jinja2 the way transformers
does, for a set of conversations, and writes the expected prompt strings that
tests/tokenizer/test_chat_format.cpp compares qwen3ChatPrompt() against.

    python3 scripts/tokenizer-reference-chat.py \\
        tests/fixtures/tokenizer/qwen3/tokenizer_config.json \\
        tests/fixtures/tokenizer/qwen3_chat_reference.json
"""
import json
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


WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city, in °C",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}

CASES = [
    {"name": "single-user", "messages": [{"role": "user", "content": "Hello!"}]},
    {"name": "system-user", "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What is 2+2?"}]},
    {"name": "thinking-off", "enable_thinking": False, "messages": [
        {"role": "user", "content": "Quick answer please /no_think"}]},
    {"name": "thinking-on-explicit", "enable_thinking": True, "messages": [
        {"role": "user", "content": "Think hard. /think"}]},
    {"name": "no-generation-prompt", "add_generation_prompt": False, "messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]},
    {"name": "multi-turn-history-think-dropped", "messages": [
        {"role": "user", "content": "First question"},
        {"role": "assistant", "content": "<think>\nreasoning one\n</think>\n\nFirst answer"},
        {"role": "user", "content": "Second question"}]},
    {"name": "last-assistant-keeps-think", "add_generation_prompt": False, "messages": [
        {"role": "user", "content": "Q"},
        {"role": "assistant", "content": "<think>\n\nsome thought\n\n</think>\n\n\nA"}]},
    {"name": "last-assistant-no-think", "add_generation_prompt": False, "messages": [
        {"role": "user", "content": "Q"}, {"role": "assistant", "content": "\n\nplain answer"}]},
    {"name": "reasoning-content-field", "add_generation_prompt": False, "messages": [
        {"role": "user", "content": "Q"},
        {"role": "assistant", "content": "Answer", "reasoning_content": "\nstep 1\nstep 2\n"}]},
    {"name": "second-system-message", "messages": [
        {"role": "system", "content": "S1"}, {"role": "user", "content": "U1"},
        {"role": "system", "content": "S2"}, {"role": "user", "content": "U2"}]},
    {"name": "tools-with-system", "tools": [WEATHER], "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"}]},
    {"name": "tools-without-system", "tools": [WEATHER, {"type": "function", "function": {
        "name": "noop", "parameters": {}}}], "messages": [{"role": "user", "content": "Hi"}]},
    {"name": "tool-call-round-trip", "tools": [WEATHER], "messages": [
        {"role": "user", "content": "Weather in Paris and 東京?"},
        {"role": "assistant", "content": "",
         "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                        {"function": {"name": "get_weather", "arguments": {"city": "東京"}}}]},
        {"role": "tool", "content": "{\"temp\": 18}"},
        {"role": "tool", "content": "{\"temp\": 22.5}"}]},
    {"name": "tool-call-with-content-and-string-args", "messages": [
        {"role": "user", "content": "Do it"},
        {"role": "assistant", "content": "Calling now.",
         "tool_calls": [{"function": {"name": "run", "arguments": "{\"x\": 1}"}}]},
        {"role": "tool", "content": "done"},
        {"role": "assistant", "content": "<think>\nit worked\n</think>\n\nAll done."}]},
    {"name": "tool-response-user-message", "messages": [
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "<think>\nx\n</think>\n\nA1"},
        {"role": "user", "content": "<tool_response>\nr\n</tool_response>"},
        {"role": "assistant", "content": "<think>\ny\n</think>\n\nA2"}]},
    {"name": "special-text-and-unicode", "messages": [
        {"role": "user", "content": "Explain <|im_end|> and 😀 in 中文\n\twith tabs"}]},
    {"name": "empty-content", "messages": [{"role": "user", "content": ""}]},
    {"name": "tx-log-question", "enable_thinking": False, "messages": [
        {"role": "system", "content": "Answer with the final balance only."},
        {"role": "user", "content": "[TX001]: Transfer $107: A=4000 → 3893, B=4200 → 4307\n"
                                    "What is B after TX001?"}]},
]


def main():
    config_path, out_path = sys.argv[1], sys.argv[2]
    template_text = json.load(open(config_path, encoding="utf-8"))["chat_template"]
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    template = env.from_string(template_text)
    out = []
    for case in CASES:
        kwargs = {"messages": case["messages"],
                  "add_generation_prompt": case.get("add_generation_prompt", True)}
        if "tools" in case:
            kwargs["tools"] = case["tools"]
        if "enable_thinking" in case:
            kwargs["enable_thinking"] = case["enable_thinking"]
        out.append(dict(case, expected=template.render(**kwargs)))
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(out)} conversations -> {out_path}")


if __name__ == "__main__":
    main()
