#!/usr/bin/python3
"""Renders chat templates with Python's jinja2 configured as Hugging Face transformers configures it for
apply_chat_template (the function vLLM and SGLang call): an ImmutableSandboxedEnvironment with trim_blocks and
lstrip_blocks, the loopcontrols extension, tojson = json.dumps(x, ensure_ascii=False, indent=, separators=,
sort_keys=), raise_exception and strftime_now globals, and the variables messages, tools, documents,
add_generation_prompt, the special tokens and the chat_template_kwargs.

Templates: the demo model's (read from app/src/main/resources/demo-model/tokenizer_config.json; it must render
Caravan's documented chat format, which this script checks against its own rendering of that format), Qwen3's own
(read from models/qwen3/tokenizer_config.json: tools, enable_thinking, reasoning stripped from assistant turns before
the last user query, consecutive tool responses), and two templates written here in the style of Llama 3's and Qwen's
(string escapes, slicing, namespace, tojson options, loop variables, tools, enable_thinking).

Run with Debian's python3 (apt-get install python3-jinja2): it rewrites ../resources/vectors/chat-templates.json.
"""
import json
import os

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env


LLAMA_STYLE = """{{- bos_token }}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content'] | trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "You are a helpful assistant." %}
{%- endif %}
{{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}
{%- if tools is not none %}
    {{- "Environment: ipython\\nTools:\\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\\n\\n" }}
    {%- endfor %}
{%- endif %}
{{- system_message + "<|eot_id|>" }}
{%- for message in messages %}
    {%- if message.role in ['user', 'assistant'] and not message.tool_calls %}
        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}
    {%- elif message.tool_calls %}
        {%- set call = message.tool_calls[0].function %}
        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n{"name": "' + call.name + '", "parameters": ' }}
        {{- call.arguments | tojson }}
        {{- "}<|eot_id|>" }}
    {%- elif message.role == "tool" %}
        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}
        {%- if message.content is mapping %}{{ message.content | tojson }}{% else %}{{ message.content }}{% endif %}
        {{- "<|eot_id|>" }}
    {%- else %}
        {{- raise_exception("unknown role " + message.role) }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}
{%- endif %}
"""

QWEN_STYLE = """{%- if tools %}
{{- '<|im_start|>system\\n' }}
{%- if messages[0].role == 'system' %}
{{- messages[0].content + '\\n\\n' }}
{%- endif %}
{{- "# Tools\\n\\nYou may call one or more functions.\\n<tools>" }}
{%- for tool in tools %}
{{- "\\n" }}
{{- tool | tojson }}
{%- endfor %}
{{- "\\n</tools><|im_end|>\\n" }}
{%- elif messages[0].role == 'system' %}
{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- endif %}
{%- set ns = namespace(last_user=-1) %}
{%- for message in messages %}
{%- if message.role == 'user' %}{%- set ns.last_user = loop.index0 %}{%- endif %}
{%- endfor %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>' + message.role }}
{%- if loop.index0 > ns.last_user %}{{- ' (latest)' }}{%- endif %}
{{- '\\n' }}
{%- if message.content %}{{- message.content }}{%- endif %}
{%- if message.tool_calls %}
{%- for tool_call in message.tool_calls %}
{%- if (loop.first and message.content) or (not loop.first) %}{{- '\\n' }}{%- endif %}
{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '<tool_call>\\n{"name": "' }}
{{- tool_call.name }}
{{- '", "arguments": ' }}
{%- if tool_call.arguments is string %}{{- tool_call.arguments }}{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}
{{- '}\\n</tool_call>' }}
{%- endfor %}
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}
{%- if loop.first or (messages[loop.index0 - 1].role != 'tool') %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') %}{{- '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\\n' }}
{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}
{%- endif %}
"""

# Python str methods templates call (Qwen's call startswith, split, lstrip, rstrip); booleans are tested, not printed
# (Jinja2 prints True where Jinjava prints true)
STR_METHODS = """{% for m in messages %}{% if m.content is string %}
{% if m.content.startswith('Hi') %}S{% endif %}{% if m.content.endswith('!') %}E{% endif %}|{{ m.content.strip() }}|
{{- m.content.lstrip(' H') }}|{{ m.content.rstrip('! ') }}|{{ m.content.split() | tojson }}|
{{- m.content.split('i', 1) | tojson }}|{{ m.content.upper() }}|{{ m.content.lower() }}|{{ m.content.replace('e', 'E') }}|
{{- m.content.split('\\n')[-1] }}|{{ '-'.join(m.content.split()) }}|{{ m.content.find('o') }}
{% endif %}{% endfor %}"""

# slices with a step, which Jinjava's parser lacks (the simulator rewrites them into a filter)
SLICES = """{{ messages[::-1] | map(attribute='role') | join(',') }}|{{ (messages[::-1])[0].role }}|{{ messages[1::2] | length }}
{%- for m in messages[::-2] %}|{{ m.content[::-1] }}{% endfor %}|{{ 'abcdef'[::2] }}|{{ 'abcdef'[4:1:-1] }}|{{ 'abcdef'[-2::-2] }}"""

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city, in °C.",
                                           "parameters": {"type": "object", "properties": {
                                               "city": {"type": "string", "description": "e.g. \"Paris\""},
                                               "days": {"type": "integer", "minimum": 1}},
                                                          "required": ["city"]}}}]
CALL = {"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}}

CONVERSATIONS = {
    "single_user": [{"role": "user", "content": "Tell me about caravans"}],
    "multi_turn": [{"role": "system", "content": "  Be brief.  "},
                   {"role": "user", "content": "Hi!"},
                   {"role": "assistant", "content": "Hello. How can I help?"},
                   {"role": "user", "content": "Plan a trip:\n1. Oslo\n2. Bergen"}],
    "tool_round_trip": [{"role": "user", "content": "Weather in Oslo?"},
                        {"role": "assistant", "content": None, "tool_calls": [CALL]},
                        {"role": "tool", "tool_call_id": "call_1", "content": "4 degrees, rain"},
                        {"role": "user", "content": "And tomorrow?"}],
}
# Qwen3's template keeps an assistant turn's reasoning (its <think> block, or reasoning_content) only after the last
# user query; earlier turns lose it. Arguments come as a JSON object or as a string.
QWEN3_CONVERSATIONS = {
    "single_user": CONVERSATIONS["single_user"],
    "multi_turn_thinking": [{"role": "system", "content": "Be brief."},
                            {"role": "user", "content": "Hi!"},
                            {"role": "assistant", "content": "<think>\nThe user greets me.\n</think>\n\nHello."},
                            {"role": "user", "content": "Plan a trip:\n1. Oslo\n2. Bergen"},
                            {"role": "assistant", "content": "Take the train.", "reasoning_content": "Scenic."},
                            {"role": "user", "content": "And back?"}],
    "reasoning_after_last_query": [{"role": "user", "content": "2+2?"},
                                   {"role": "assistant", "content": "<think>\nAdd.\n</think>\n\n4"}],
    "tool_round_trip": [{"role": "system", "content": "You check the weather."},
                        {"role": "user", "content": "Weather in Oslo and Bergen?"},
                        {"role": "assistant", "content": "<think>\nTwo calls.\n</think>\n\nChecking.",
                         "tool_calls": [CALL, {"id": "call_2", "type": "function",
                                               "function": {"name": "get_weather",
                                                            "arguments": "{\"city\": \"Bergen\"}"}}]},
                        {"role": "tool", "tool_call_id": "call_1", "content": "4 degrees, rain"},
                        {"role": "tool", "tool_call_id": "call_2", "content": "6 degrees, sun"},
                        {"role": "assistant", "content": "Rain in Oslo, sun in Bergen."},
                        {"role": "user", "content": "Thanks"}],
    "tool_response_last": [{"role": "user", "content": "Weather in Oslo?"},
                           {"role": "assistant", "content": "", "tool_calls": [CALL]},
                           {"role": "tool", "tool_call_id": "call_1", "content": "4 degrees, rain"}],
}
QWEN3_KWARGS = ({}, {"enable_thinking": False}, {"enable_thinking": True})

CONTENT_PARTS = [{"role": "user", "content": [{"type": "text", "text": "Look:"}, {"type": "image_url",
                                                                                   "image_url": {"url": "x"}},
                                               {"type": "text", "text": "What is it?"}]}]


def caravan_format(messages, tools, add_generation_prompt):
    """Caravan's documented chat format (docs/simulator.md), written from its description."""
    def compact(x):
        return json.dumps(x, ensure_ascii=False, separators=(",", ":"))
    out = ""
    if tools:
        out += "<|tools|>\n" + compact(tools) + "\n"
    for m in messages:
        out += "<|" + m["role"] + "|>\n"
        if m.get("tool_call_id"):
            out += "[" + m["tool_call_id"] + "] "
        c = m.get("content")
        if isinstance(c, str):
            out += c
        elif c:
            out += "\n".join(p["text"] if p.get("type") == "text" else "<|" + (p.get("type") or "part") + "|>"
                             for p in c)
        if m.get("tool_calls"):
            out += "\n<|tool_calls|>" + compact(m["tool_calls"])
        out += "\n"
    if add_generation_prompt:
        out += "<|assistant|>\n"
    return out


def main():
    env = environment()
    config = json.load(open(os.path.join(ROOT, "app", "src", "main", "resources", "demo-model",
                                         "tokenizer_config.json"), encoding="utf-8"))
    qwen3 = json.load(open(os.path.join(ROOT, "models", "qwen3", "tokenizer_config.json"), encoding="utf-8"))
    templates = {"demo": config["chat_template"], "llama_style": LLAMA_STYLE, "qwen_style": QWEN_STYLE,
                 "str_methods": STR_METHODS, "slices": SLICES, "qwen3": qwen3["chat_template"]}
    special = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
    cases = []
    for name, source in templates.items():
        tpl = env.from_string(source)
        single = name in ("str_methods", "slices")
        convs = dict(CONVERSATIONS) if not single else {k: CONVERSATIONS[k] for k in ("multi_turn",)}
        if name == "qwen3":
            convs = QWEN3_CONVERSATIONS
        if name == "demo":
            convs["content_parts"] = CONTENT_PARTS
        for conv_name, messages in convs.items():
            for tools in ((None, TOOLS) if not single else (None,)):
                for agp in ((True, False) if not single else (True,)):
                    for kwargs in QWEN3_KWARGS if name == "qwen3" else ({}, {"enable_thinking": False}):
                        if kwargs and name not in ("qwen_style", "qwen3"):
                            continue
                        ctx = dict(special)
                        ctx.update(kwargs)
                        rendered = tpl.render(messages=messages, tools=tools, documents=None,
                                              add_generation_prompt=agp, **ctx)
                        if name == "demo":
                            assert rendered == caravan_format(messages, tools, agp), (conv_name, rendered)
                        cases.append({"template": name, "conversation": conv_name, "messages": messages,
                                      "tools": tools, "add_generation_prompt": agp, "kwargs": kwargs,
                                      "rendered": rendered})
    out = {"generator": "sim/src/test/python/derive_chat_template_vectors.py", "jinja2": jinja2.__version__,
           "special_tokens": special, "templates": templates, "cases": cases}
    path = os.path.join(HERE, "..", "resources", "vectors", "chat-templates.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote %d renders of %d templates to %s" % (len(cases), len(templates), os.path.normpath(path)))


if __name__ == "__main__":
    main()
