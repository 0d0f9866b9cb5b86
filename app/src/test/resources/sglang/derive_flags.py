#!/usr/bin/env python3
"""Derives SGLang router's flag lists from its own sources, in its own language (run by hand, output committed).

    python3 derive_flags.py ROUTER_ARGS_PY MAIN_RS

ROUTER_ARGS_PY is bindings/python/src/sglang_router/router_args.py and MAIN_RS is src/main.rs of the pinned revision
(see PINNED below). The Python launcher's list comes from running its real argparse code (RouterArgs.add_cli_args):
once as `python -m sglang_router.launch_router` builds its parser, once as `launch_server` does (use_router_prefix=True,
exclude_host_port=True: the --router-* forms). The Rust binary's list is read from the clap derive struct `CliArgs`
(plus --prefill, which main.rs parses by hand before clap). Writes python-launch-router-flags.tsv and
rust-binary-flags.tsv next to this script.
"""
import argparse
import importlib.util
import os
import re
import sys
import types

PINNED = ("sglang-router 0.3.2: lightseekorg/smg c7f9bf9f563cbb652b17942dd6d91a29511034a3 "
          "(\"[smg] release 0.3.2 (#17168)\", 2026-01-15), the last sgl-project/sglang sgl-model-gateway/ commit "
          "before the split")
HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = "flag\tarity\tdefault\tchoices\tsource"


def python_flags(path):
    # router_args imports the Rust extension for the tool-call parser names: a stub stands in (the choices are not
    # needed: Caravan refuses the flag whatever its value)
    pkg = types.ModuleType("sglang_router")
    pkg.__path__ = []
    rs = types.ModuleType("sglang_router.sglang_router_rs")
    rs.get_available_tool_call_parsers = lambda: None
    sys.modules["sglang_router"] = pkg
    sys.modules["sglang_router.sglang_router_rs"] = rs
    spec = importlib.util.spec_from_file_location("sglang_router.router_args", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = []
    for prefix, source in ((False, "launch_router"), (True, "launch_server")):
        parser = argparse.ArgumentParser(add_help=False)
        module.RouterArgs.add_cli_args(parser, use_router_prefix=prefix, exclude_host_port=prefix)
        for action in parser._actions:
            for flag in action.option_strings:
                rows.append((flag, arity(action), default(action), choices(action), source))
    return rows


def arity(action):
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        return "switch"
    n = action.nargs
    kind = "append " if isinstance(action, argparse._AppendAction) else ""
    if n is None:
        return kind + "1"
    return kind + str(n)


def default(action):
    d = action.default
    if d is None or d == [] or d == {}:
        return ""
    if isinstance(action, argparse._StoreTrueAction) and d is False:
        return ""
    if isinstance(d, float) and d.is_integer():
        return str(d)
    return str(d)


def choices(action):
    return "|".join(str(c) for c in action.choices) if action.choices else ""


FIELD = re.compile(r"^\s*(?:pub\s+)?([a-z_0-9]+)\s*:\s*([^,]+),\s*$")


def rust_flags(path):
    text = open(path, encoding="utf-8").read()
    body = text[text.index("struct CliArgs {"):]
    body = body[:body.index("\n}\n")]
    rows = []
    attrs = []
    pending = ""
    for line in body.splitlines()[1:]:
        s = line.strip()
        if pending:
            pending += " " + s
            if s.endswith(")]"):
                attrs.append(pending)
                pending = ""
            continue
        if s.startswith("#[arg("):
            if s.endswith(")]"):
                attrs.append(s)
            else:
                pending = s
            continue
        m = FIELD.match(line)
        if m and attrs:
            name, typ = m.group(1), m.group(2).strip()
            attr = " ".join(attrs)
            attrs = []
            long_name = re.search(r'long\s*=\s*"([^"]+)"', attr)
            flag = "--" + (long_name.group(1) if long_name else name.replace("_", "-"))
            dv = re.search(r'default_value_t\s*=\s*([^,)]+)', attr) or re.search(r'default_value\s*=\s*"([^"]*)"', attr)
            dflt = dv.group(1).strip() if dv else ""
            if dflt.startswith("Backend::"):
                dflt = dflt.split("::")[1].lower()
            if dflt == "false":
                dflt = ""
            if typ == "bool":
                ar = "switch"
            elif "ArgAction::Append" in attr:
                ar = "append 1"
            elif "num_args" in attr:
                ar = "*"
            else:
                ar = "1"
            vp = re.search(r'value_parser\s*=\s*\[([^\]]*)\]', attr)
            ch = "|".join(x.strip().strip('"') for x in vp.group(1).split(",")) if vp else ""
            if typ == "Backend":
                ch = "sglang|vllm|trtllm|openai|anthropic"
            rows.append((flag, ar, dflt, ch, "main.rs"))
            alias = re.search(r'alias\s*=\s*"([^"]+)"', attr)
            if alias:
                rows.append(("--" + alias.group(1), ar, dflt, ch, "main.rs alias of " + flag))
        elif not s.startswith("//") and s and not s.startswith("#"):
            attrs = []
    # --prefill URL [BOOTSTRAP_PORT|none] is read from argv by parse_prefill_args() before clap sees the rest
    rows.append(("--prefill", "append 1-2", "", "", "main.rs parse_prefill_args"))
    return rows


def write(name, header, rows):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as out:
        out.write("# " + header + "\n# Pinned: " + PINNED + "\n# Generated by derive_flags.py; do not edit.\n")
        out.write(COLUMNS + "\n")
        for r in rows:
            out.write("\t".join(r) + "\n")


if __name__ == "__main__":
    write("python-launch-router-flags.tsv",
          "SGLang router flags of the Python launcher: python -m sglang_router.launch_router (source launch_router) "
          "and the --router-* forms python -m sglang_router.launch_server adds (source launch_server).",
          python_flags(sys.argv[1]))
    write("rust-binary-flags.tsv",
          "SGLang router flags of the Rust binary (sglang-router / smg launch): clap struct CliArgs in src/main.rs.",
          rust_flags(sys.argv[2]))
