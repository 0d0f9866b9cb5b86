#!/usr/bin/python3
"""Builds the demo model's tokenizer: a small but real Hugging Face byte-level BPE tokenizer.json (GPT-2's scheme:
ByteLevel pre-tokenizer with the GPT-2 split regex, BPE merges, ByteLevel decoder, no BOS/EOS added) trained here on
Caravan's own documentation, plus a tokenizer_config.json whose chat_template renders Caravan's documented chat format
(docs/simulator.md, "Demo model").

Everything it writes is generated from this repository's text: no third-party vocabulary or data. Deterministic
(pair ties are broken by the pair's text). Run from anywhere with Debian's python3; it rewrites
app/src/main/resources/demo-model/{tokenizer.json,tokenizer_config.json}. The build does not run it.
"""
import collections
import glob
import json
import os
import re

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
OUT = os.path.join(ROOT, "app", "src", "main", "resources", "demo-model")
MERGES = 2000
SPECIAL = ["<|endoftext|>", "<|system|>", "<|user|>", "<|assistant|>", "<|tool|>", "<|tools|>", "<|tool_calls|>"]

# Caravan's chat format as a Jinja template (see the module doc). Newlines that follow a block tag are doubled:
# transformers renders with trim_blocks, which drops the first newline after a block tag.
CHAT_TEMPLATE = (
    "{% if tools %}<|tools|>\n{{ tools | tojson(separators=[',', ':']) }}\n{% endif %}"
    "{% for message in messages %}<|{{ message['role'] }}|>\n"
    "{% if message['tool_call_id'] %}[{{ message['tool_call_id'] }}] {% endif %}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% elif message['content'] %}{% for part in message['content'] %}"
    "{% if not loop.first %}\n\n{% endif %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}{% else %}<|{{ part['type'] or 'part' }}|>{% endif %}"
    "{% endfor %}{% endif %}"
    "{% if message['tool_calls'] %}\n\n<|tool_calls|>{{ message['tool_calls'] | tojson(separators=[',', ':']) }}"
    "{% endif %}\n\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)

# GPT-2's split pattern, with ASCII classes (only the training split; encoding uses the library's own regex)
SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def corpus():
    files = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + [os.path.join(ROOT, "README.md")]
    return "\n".join(open(f, encoding="utf-8").read() for f in files)


def train(text):
    b2u = bytes_to_unicode()
    counts = collections.Counter(SPLIT.findall(text))
    words = [[b2u[b] for b in w.encode("utf-8")] for w in counts]
    freqs = list(counts.values())
    pairs = collections.Counter()
    where = collections.defaultdict(set)
    for i, w in enumerate(words):
        for a, b in zip(w, w[1:]):
            pairs[(a, b)] += freqs[i]
            where[(a, b)].add(i)
    merges = []
    for _ in range(MERGES):
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], [-ord(c) for c in kv[0][0] + "\0" + kv[0][1]]))[0]
        if pairs[best] < 2:
            break
        merges.append(best)
        merged = best[0] + best[1]
        for i in list(where[best]):
            w = words[i]
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] -= freqs[i]
                where[(a, b)].discard(i)
                if pairs[(a, b)] <= 0:
                    del pairs[(a, b)]
            out = []
            j = 0
            while j < len(w):
                if j + 1 < len(w) and w[j] == best[0] and w[j + 1] == best[1]:
                    out.append(merged)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            words[i] = out
            for a, b in zip(out, out[1:]):
                pairs[(a, b)] += freqs[i]
                where[(a, b)].add(i)
    vocab = {}
    for b in range(256):
        vocab[b2u[b]] = len(vocab)
    for a, b in merges:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    return vocab, merges


def main():
    vocab, merges = train(corpus())
    added = [{"id": len(vocab) + i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, t in enumerate(SPECIAL)]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": byte_level, "post_processor": dict(byte_level, trim_offsets=False), "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": ["%s %s" % m for m in merges]},
    }
    config = {
        "add_bos_token": False, "add_eos_token": False, "bos_token": None, "eos_token": "<|endoftext|>",
        "pad_token": "<|endoftext|>", "unk_token": None, "model_max_length": 8192,
        "clean_up_tokenization_spaces": False, "tokenizer_class": "PreTrainedTokenizerFast",
        "chat_template": CHAT_TEMPLATE,
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(OUT, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print("vocab %d + %d special tokens, %d merges -> %s" % (len(vocab), len(SPECIAL), len(merges), OUT))


if __name__ == "__main__":
    main()
