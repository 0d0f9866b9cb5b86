// Derives Qwen3 token-id vectors with Hugging Face's own JavaScript tokenizer (npm @huggingface/tokenizers, a separate
// implementation from the Rust library the simulator binds through DJL), independently of Caravan's code.
// Run: npm install @huggingface/tokenizers@0.2.0 in a scratch directory, then from it
//   node <repo root>/sim/src/test/python/derive_qwen3_tokens.mjs <repo root>
// It reads models/qwen3 and the Qwen3 renders of sim/src/test/resources/vectors/chat-templates.json (written by
// derive_chat_template_vectors.py with Python's jinja2), and writes sim/src/test/resources/vectors/qwen3-tokens.json:
// each render encoded as a chat prompt (no special tokens added: the template holds them), and a few texts encoded as
// completions prompts (with the tokenizer's special tokens; Qwen3's post-processor adds none).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.argv[2];
const { Tokenizer } = await import(pathToFileURL(join(process.cwd(),
    "node_modules/@huggingface/tokenizers/dist/tokenizers.mjs")).href);
const model = join(root, "models/qwen3");
const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(model, "tokenizer.json"), "utf8")),
    JSON.parse(readFileSync(join(model, "tokenizer_config.json"), "utf8")));
const chats = JSON.parse(readFileSync(join(root, "sim/src/test/resources/vectors/chat-templates.json"), "utf8"));

const texts = [
  "Tell me about caravans",
  "the of and to policy invoice ticket customer service request order product support schema tool query cache.",
  "Unicode: naïve café, 東京, emoji 🐪 and tabs\tand\nnewlines  with  spaces.",
  "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n",
];
const cases = texts.map((text) => ({ source: "completion", text, add_special_tokens: true,
  ids: tokenizer.encode(text, { add_special_tokens: true }).ids }));
chats.cases.forEach((c, index) => {
  if (c.template !== "qwen3") {
    return;
  }
  cases.push({ source: "chat", chat_case: index, text: c.rendered, add_special_tokens: false,
    ids: tokenizer.encode(c.rendered, { add_special_tokens: false }).ids });
});
const out = join(root, "sim/src/test/resources/vectors/qwen3-tokens.json");
const head = { generator: "sim/src/test/python/derive_qwen3_tokens.mjs", tokenizer: "@huggingface/tokenizers 0.2.0",
  model: "models/qwen3" };
writeFileSync(out, JSON.stringify(head, null, 1).replace(/\n}$/, ',\n "cases": [\n')
    + cases.map((c) => "  " + JSON.stringify(c)).join(",\n") + "\n ]\n}\n");
console.log(`wrote ${cases.length} cases to ${out}`);
