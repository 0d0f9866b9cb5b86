// Step 2 of the prompt vectors (see derive_prompt_vectors.py): encodes every rendered prompt of
// ../resources/vectors/prompt-tokens.json with Hugging Face's JavaScript tokenizer (npm @huggingface/tokenizers, an
// implementation separate from the Rust library Caravan's DJL binds) -- chat prompts without the tokenizer's special
// tokens (the template holds them: vLLM's chat default add_special_tokens=false), completion prompts with them (vLLM's
// completions default) -- and writes the ids back into the file.
// Run: npm install @huggingface/tokenizers@0.2.0 in a scratch directory, then from it
//   node <this dir>/tokenize_prompt_vectors.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const resources = join(dirname(fileURLToPath(import.meta.url)), "..", "resources");
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", ".."); // model files: models/... there
const { Tokenizer } = await import(pathToFileURL(join(process.cwd(),
    "node_modules/@huggingface/tokenizers/dist/tokenizers.mjs")).href);
const file = join(resources, "vectors", "prompt-tokens.json");
const vectors = JSON.parse(readFileSync(file, "utf8"));
const tokenizers = {};
for (const [model, spec] of Object.entries(vectors.models)) {
  const dir = join(root, spec.dir);
  tokenizers[model] = new Tokenizer(JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")),
      JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8")));
}
for (const c of vectors.cases) {
  const addSpecialTokens = c.kind !== "chat";
  c.add_special_tokens = addSpecialTokens;
  c.ids = tokenizers[c.model].encode(c.rendered, { add_special_tokens: addSpecialTokens }).ids;
}
vectors.tokenizer = "@huggingface/tokenizers 0.2.0";
writeFileSync(file, JSON.stringify(vectors, null, 1) + "\n");
console.log("tokenized " + vectors.cases.length + " cases");
