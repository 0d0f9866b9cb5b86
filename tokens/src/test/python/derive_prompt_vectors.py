#!/usr/bin/python3
"""Derives the engine's prompt for chat and completion requests the way vLLM's OpenAI server builds it, independently
of Caravan's Java code, for the token-identity tests (PromptVectorsTest, docs/tokens.md).

Step 1 (this script, Python): for every case, vLLM's chat preprocessing -- the request's tools through pydantic
models declared as vLLM declares them (ChatCompletionToolsParam / FunctionDefinition, extra fields allowed, so
model_dump() puts declared fields first and fills missing ones with None); messages parsed as vLLM's
parse_chat_messages does (content as one string joined with "\n", or as OpenAI text parts when the template loops over
message content -- detected from the template's jinja2 AST as vLLM's _detect_content_format does; tool results joined
to a string; tool_calls arguments json.loads'ed, invalid or missing -> {}; empty tool_calls dropped; name kept);
then the template rendered as transformers' apply_chat_template renders it: an ImmutableSandboxedEnvironment with
trim_blocks and lstrip_blocks, the loopcontrols extension, tojson = json.dumps(x, ensure_ascii=False, indent=,
separators=, sort_keys=), the raise_exception and strftime_now globals, the variables messages, tools, documents,
add_generation_prompt, the tokenizer's special tokens map and the request's chat_template_kwargs; with
continue_final_message the rendering is cut after the final message's content. Completion prompts are kept as text.

Step 2 (tokenize_prompt_vectors.mjs, Node): Hugging Face's JavaScript tokenizer encodes each rendered prompt
(add_special_tokens false for chat, true for completions, as vLLM) and writes the ids.

Run from this directory with Python 3 and jinja2 + pydantic (Debian: python3-jinja2 python3-pydantic):
  python3 derive_prompt_vectors.py && node tokenize_prompt_vectors.mjs   (see that script for its one npm package)
It rewrites ../resources/vectors/prompt-tokens.json.
"""
import json
import os
from datetime import datetime
from typing import Any, Literal, Optional

import jinja2
import jinja2.nodes as nodes
import pydantic
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment
from pydantic import BaseModel, ConfigDict

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.normpath(os.path.join(HERE, "..", "resources"))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))  # model files: models/... at the repository root
SPECIAL = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]


# ---- vLLM's request models for tools (vllm/entrypoints/openai protocol: OpenAIBaseModel has extra="allow") -------
class OpenAIBaseModel(BaseModel):
    model_config = ConfigDict(extra="allow")


class FunctionDefinition(OpenAIBaseModel):
    name: str
    description: Optional[str] = None
    parameters: Optional[dict[str, Any]] = None


class ChatCompletionToolsParam(OpenAIBaseModel):
    type: Literal["function"] = "function"
    function: FunctionDefinition


# ---- transformers' chat-template environment ---------------------------------------------------------------------
def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        return datetime.now().strftime(fmt)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


# ---- vLLM's content-format detection (chat_utils._detect_content_format), on jinja2's AST -------------------------
def _is_var_access(node, varname):
    if isinstance(node, nodes.Name):
        return node.ctx == "load" and node.name == varname
    return False


def _is_attr_access(node, varname, key):
    if isinstance(node, nodes.Getitem):
        return _is_var_access(node.node, varname) and isinstance(node.arg, nodes.Const) and node.arg.value == key
    if isinstance(node, nodes.Getattr):
        return _is_var_access(node.node, varname) and node.attr == key
    return False


def _is_var_or_elems_access(node, varname, key=None):
    if isinstance(node, nodes.Filter):
        return node.node is not None and _is_var_or_elems_access(node.node, varname, key)
    if isinstance(node, nodes.Test):
        return _is_var_or_elems_access(node.node, varname, key)
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
        return _is_var_or_elems_access(node.node, varname, key)
    return _is_attr_access(node, varname, key) if key else _is_var_access(node, varname)


def _iter_nodes_assign_var_or_elems(root, varname):
    related = {varname}
    for assign_ast in root.find_all(nodes.Assign):
        lhs, rhs = assign_ast.target, assign_ast.node
        if isinstance(lhs, nodes.Name) and any(_is_var_or_elems_access(rhs, r) for r in list(related)):
            related.add(lhs.name)
            yield assign_ast, lhs.name


def _iter_nodes_assign_messages_item(root):
    messages_varnames = [v for _, v in _iter_nodes_assign_var_or_elems(root, "messages")] + ["messages"]
    for loop_ast in root.find_all(nodes.For):
        loop_iter, loop_target = loop_ast.iter, loop_ast.target
        for varname in messages_varnames:
            if _is_var_or_elems_access(loop_iter, varname) and isinstance(loop_target, nodes.Name):
                yield loop_ast, loop_target.name
                break


def _iter_nodes_assign_content_item(root):
    message_varnames = [v for _, v in _iter_nodes_assign_messages_item(root)]
    for loop_ast in root.find_all(nodes.For):
        loop_iter, loop_target = loop_ast.iter, loop_ast.target
        for varname in message_varnames:
            if _is_var_or_elems_access(loop_iter, varname, "content") and isinstance(loop_target, nodes.Name):
                yield loop_ast, loop_target.name
                break


def content_format(template):
    ast = environment().parse(template)
    return "openai" if next(_iter_nodes_assign_content_item(ast), None) is not None else "string"


# ---- vLLM's parse_chat_messages for text-only conversations --------------------------------------------------------
def parse_messages(messages, fmt):
    out = []
    for m in messages:
        role = m["role"]
        content = m.get("content")
        parts = [] if content is None else ([{"type": "text", "text": content}] if isinstance(content, str) else content)
        texts = [p if isinstance(p, str) else p.get("text") for p in parts]
        texts = [t for t in texts if t is not None]
        msg = {"role": role, "content": [{"type": "text", "text": t} for t in texts] if fmt == "openai" else "\n".join(texts)}
        if role == "assistant":
            if m.get("tool_calls") is not None:
                msg["tool_calls"] = [json.loads(json.dumps(c)) for c in m["tool_calls"]]
            if m.get("reasoning") is not None:
                msg["reasoning"] = m["reasoning"]
                msg["reasoning_content"] = m["reasoning"]
        elif role == "tool":
            if "tool_call_id" in m:
                msg["tool_call_id"] = m["tool_call_id"]
            if isinstance(msg["content"], list):
                msg["content"] = "\n".join(p["text"] for p in msg["content"])
        if isinstance(m.get("name"), str):
            msg["name"] = m["name"]
        out.append(msg)
    for msg in out:
        if msg["role"] == "assistant" and isinstance(msg.get("tool_calls"), list):
            if not msg["tool_calls"]:
                del msg["tool_calls"]
                continue
            for item in msg["tool_calls"]:
                args = item["function"].get("arguments")
                if isinstance(args, str):
                    try:
                        item["function"]["arguments"] = json.loads(args)
                    except json.JSONDecodeError:
                        item["function"]["arguments"] = {}
                elif not isinstance(args, (dict, list)):
                    item["function"]["arguments"] = {}
    return out


def special_tokens(config):
    out = {}
    for name in SPECIAL:
        v = config.get(name)
        if isinstance(v, dict):
            v = v.get("content")
        if v is not None:
            out[name] = v
    if config.get("additional_special_tokens"):
        out["additional_special_tokens"] = [t["content"] if isinstance(t, dict) else t
                                            for t in config["additional_special_tokens"]]
    return out


def render(template, config, request):
    fmt = content_format(template)
    conversation = parse_messages(request["messages"], fmt)
    tools = None if request.get("tools") is None else [ChatCompletionToolsParam(**t).model_dump()
                                                       for t in request["tools"]]
    kwargs = dict(special_tokens(config))
    kwargs.update(request.get("chat_template_kwargs") or {})
    continue_final = request.get("continue_final_message", False)
    add_generation_prompt = request.get("add_generation_prompt", True)
    rendered = environment().from_string(template).render(messages=conversation, tools=tools, documents=None,
                                                          add_generation_prompt=add_generation_prompt, **kwargs)
    if continue_final:
        final = conversation[-1]["content"]
        if not isinstance(final, str):
            final = final[-1]["text"]
        rendered = rendered[: rendered.rindex(final.strip()) + len(final.strip())]
    return fmt, rendered


# ---- the cases ----------------------------------------------------------------------------------------------------
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city, in °C.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "e.g. \"Oslo\""},
                                                    "days": {"type": "integer", "minimum": 1}},
                   "required": ["city"]}}}
TIME = {"function": {"parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}, "name": "now",
                     "strict": True}}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\", \"days\": 2}"}}
CALL2 = {"id": "call_2", "type": "function", "function": {"name": "now", "arguments": {"tz": "Europe/Oslo"}}}

CHATS = {
    "single_user": {"messages": [{"role": "user", "content": "Tell me about caravans"}]},
    "system_multi_turn": {"messages": [
        {"role": "system", "content": "  You are terse.  "},
        {"role": "user", "content": "Hi!"},
        {"role": "assistant", "content": "Hello. How can I help?"},
        {"role": "user", "content": "Plan a trip:\n1. Oslo\n2. Bergen — by train 🚆"}]},
    "content_parts": {"messages": [
        {"role": "user", "content": [{"type": "text", "text": "First part."}, {"type": "text", "text": "Second part."}]}]},
    "no_generation_prompt": {"messages": [
        {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}], "add_generation_prompt": False},
    "continue_final_message": {"messages": [
        {"role": "user", "content": "Count to three"}, {"role": "assistant", "content": "One, two,"}],
        "add_generation_prompt": False, "continue_final_message": True},
    "tools_round_trip": {"tools": [WEATHER, TIME], "messages": [
        {"role": "system", "content": "Use tools."},
        {"role": "user", "content": "Weather in Oslo, and the time?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL, CALL2]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 3}"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "14:05"}]},
        {"role": "user", "content": "Thanks. Tomorrow?"}]},
    "tools_first_turn": {"tools": [WEATHER], "messages": [{"role": "user", "content": "Weather in Paris?"}]},
    "reasoning_history": {"messages": [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "<think>\nsimple sum\n</think>\n\n4"},
        {"role": "user", "content": "And 3+3?"}]},
    "reasoning_last_turn": {"messages": [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4", "reasoning": "add them"}]},
    "thinking_off": {"messages": [{"role": "user", "content": "Quick answer please"}],
                     "chat_template_kwargs": {"enable_thinking": False}},
    "thinking_on": {"messages": [{"role": "user", "content": "Think hard"}],
                    "chat_template_kwargs": {"enable_thinking": True}},
    "empty_tool_calls_bad_arguments": {"tools": [WEATHER], "messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": []},
        {"role": "user", "content": "Go on"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c3", "type": "function", "function": {"name": "get_weather", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "c3", "content": "error"}]},
    # Mistral's templates want 9-character alphanumeric call ids and user/assistant alternation around tool turns
    "mistral_tool_round_trip": {"tools": [WEATHER, TIME], "messages": [
        {"role": "system", "content": "Use tools."},
        {"role": "user", "content": "Weather in Oslo, and the time?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "Xr7kQ2mZp", "type": "function", "function": {"name": "get_weather",
                                                                  "arguments": "{\"city\": \"Oslo\", \"days\": 2}"}},
            {"id": "b4Tn9LwQe", "type": "function", "function": {"name": "now", "arguments": {"tz": "Europe/Oslo"}}}]},
        {"role": "tool", "tool_call_id": "Xr7kQ2mZp", "content": "{\"temp\": 3}"},
        {"role": "tool", "tool_call_id": "b4Tn9LwQe", "content": [{"type": "text", "text": "14:05"}]},
        {"role": "assistant", "content": "3 °C in Oslo; it is 14:05."},
        {"role": "user", "content": "Thanks. Tomorrow?"}]},
    "named_user": {"messages": [{"role": "user", "content": "Who am I?", "name": "alice"}]},
    "features": {"messages": [
        {"role": "system", "content": "  Hi there!  "},
        {"role": "user", "content": "Hello world, how are you?"},
        {"role": "assistant", "content": "Fine, thanks!"},
        {"role": "user", "content": "Good"},
        {"role": "user", "content": "never reached"}],
        "chat_template_kwargs": {"meta": {"name": "caravan", "nums": [3, 1.5, 1e-07, 1e20, -2, 100.0],
                                          "flag": False, "nested": {"z": None, "a": "ü\t\"q\""}}}},
    "dated_tools": {"tools": [TIME], "chat_template_kwargs": {"date_string": "05 Mar 2026"}, "messages": [
        {"role": "system", "content": [{"type": "text", "text": "Be exact."}, {"type": "text", "text": "Use UTC."}]},
        {"role": "user", "content": [{"type": "text", "text": "  What time is it?  "}]},
        {"role": "assistant", "content": None, "tool_calls": [CALL2]},
        {"role": "tool", "tool_call_id": "call_2", "content": "14:05"}]},
}

MODELS = {
    "qwen3": {"dir": "models/qwen3", "template": None,
              "chats": ["single_user", "system_multi_turn", "content_parts", "no_generation_prompt",
                        "continue_final_message", "tools_round_trip", "tools_first_turn", "reasoning_history",
                        "reasoning_last_turn", "thinking_off", "thinking_on", "empty_tool_calls_bad_arguments",
                        "named_user"]},
    "qwen3-features": {"dir": "models/qwen3", "template": "models/features.jinja", "chats": ["features"]},
    # Mistral NeMo's template emits bos_token and its tokenizer's post-processor adds <s> too: one BOS for chat
    # (add_special_tokens false), one for completions (true)
    "mistral_nemo": {"dir": "models/mistral_nemo", "template": None,
                     "chats": ["single_user", "system_multi_turn", "content_parts", "no_generation_prompt",
                               "continue_final_message", "named_user", "tools_first_turn", "mistral_tool_round_trip"]},
    # the Llama-3-style tool-calling template (Caravan's) on Mistral NeMo's tokenizer: Llama 3's own files are not
    # committed (Llama 3.1 Community License); its header tokens are plain text to this tokenizer, its bos_token is <s>
    "nemo-llama-style-tools": {"dir": "models/mistral_nemo", "template": "models/tool_chat_template.jinja",
                               "kwargs": {"date_string": "26 Jul 2024"},
                               "chats": ["single_user", "system_multi_turn", "tools_round_trip", "tools_first_turn",
                                         "dated_tools", "content_parts"]},
}
PROMPTS = ["Tell me about caravans", "The caravan crosses the desert at night.\n\nNext line, tabs\tand  spaces",
           "Unicode: naïve café, 東京, emoji 🐪", "<|im_start|>user\nliteral special tokens<|im_end|>"]


def main():
    cases = []
    templates = {}
    for model, spec in MODELS.items():
        config = json.load(open(os.path.join(ROOT, spec["dir"], "tokenizer_config.json"), encoding="utf-8"))
        if spec["template"]:
            template = open(os.path.join(ROOT, spec["template"]), encoding="utf-8").read()
        else:
            template = config["chat_template"]
        for name in spec["chats"]:
            request = dict(CHATS[name])
            if spec.get("kwargs"):
                request.setdefault("chat_template_kwargs", dict(spec["kwargs"]))
            fmt, rendered = render(template, config, request)
            templates[model] = fmt
            # the body as the client sends it: a JSON text, so float literals (100.0, 1e+20) survive the Node step
            cases.append({"model": model, "name": name, "kind": "chat", "body": json.dumps(request, ensure_ascii=False),
                          "rendered": rendered})
        if spec["template"] is None:
            for i, prompt in enumerate(PROMPTS):
                cases.append({"model": model, "name": "prompt_%d" % i, "kind": "completions",
                              "body": json.dumps({"prompt": prompt}, ensure_ascii=False), "rendered": prompt})
    out = {"generator": "tokens/src/test/python/derive_prompt_vectors.py + tokenize_prompt_vectors.mjs",
           "jinja2": jinja2.__version__, "pydantic": pydantic.VERSION,
           "models": {m: {"dir": s["dir"], "chat_template": s["template"], "content_format": templates[m]}
                      for m, s in MODELS.items()},
           "cases": cases}
    path = os.path.join(RESOURCES, "vectors", "prompt-tokens.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), path))


if __name__ == "__main__":
    main()
