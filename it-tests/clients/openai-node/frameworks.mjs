// Two client frameworks built on OpenAI's API against a running gateway: the Vercel AI SDK (`ai` with
// `@ai-sdk/openai`) and LangChain.js (`@langchain/openai`). Run by it-tests/clients/openai-node.sh --frameworks (which
// starts the gateway and two simulated engines decoding a token every 25 ms); usage:
//   node frameworks.mjs BASE_URL MODEL
// Prints one line per check and exits 1 at the first that fails.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, embedMany, generateText, streamText } from 'ai';
import { ChatOpenAI, OpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { runChecks } from './run-checks.mjs';

const [base, model] = process.argv.slice(2);
const version = (pkg) => JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url))).version;
const ai = createOpenAI({ baseURL: `${base}/v1`, apiKey: 'none' });
const lc = { model, apiKey: 'none', configuration: { baseURL: `${base}/v1` }, maxRetries: 0 };
const inputs = ['hello', 'world'];

/** Reads a stream of text pieces: how many, the text, and the milliseconds between the first and the last. */
async function pieces(stream, text = (p) => p) {
  let n = 0, all = '', first, last;
  for await (const p of stream) {
    const t = text(p);
    if (!t) continue;
    n++; all += t; last = Date.now(); first ??= last;
  }
  return { n, all, spread: last - first };
}

const checks = {
  'AI SDK, chat: generateText and streamText token by token with usage': async () => {
    const whole = await generateText({ model: ai.chat(model), prompt: 'hello there', maxOutputTokens: 5 });
    assert.equal(whole.finishReason, 'length');
    assert.equal(whole.usage.outputTokens, 5);
    const streamed = streamText({ model: ai.chat(model), prompt: 'hello there', maxOutputTokens: 8 });
    const p = await pieces(streamed.textStream);
    assert.equal(p.n, 8, 'one text delta per token');
    assert.ok(p.spread >= 75, `8 tokens at 25 ms each arrived within ${p.spread} ms: buffered`);
    assert.equal((await streamed.usage).outputTokens, 8);
    return `"${whole.text}"; 8 deltas over ${p.spread} ms`;
  },
  'AI SDK, completions: generateText and streamText': async () => {
    const whole = await generateText({ model: ai.completion(model), prompt: 'hello there', maxOutputTokens: 5 });
    assert.equal(whole.usage.outputTokens, 5);
    const p = await pieces(streamText({ model: ai.completion(model), prompt: 'hi', maxOutputTokens: 6 }).textStream);
    assert.equal(p.n, 6);
    return `"${whole.text}"; ${p.n} deltas`;
  },
  'AI SDK, the Responses API (its default model): generateText and streamText': async () => {
    const whole = await generateText({ model: ai(model), prompt: 'hello there', maxOutputTokens: 16 });
    assert.equal(whole.usage.outputTokens, 16);
    const streamed = streamText({ model: ai.responses(model), prompt: 'hello there', maxOutputTokens: 16 });
    const p = await pieces(streamed.textStream);
    assert.equal(p.n, 16);
    assert.equal((await streamed.usage).outputTokens, 16);
    return `${whole.text.split(' ').length - 1} words; ${p.n} deltas`;
  },
  'AI SDK, an unknown model is an APICallError 404 with the gateway\'s message': async () => {
    try {
      await generateText({ model: ai.chat('no-such-model'), prompt: 'hi', maxRetries: 0 });
    } catch (e) {
      assert.ok(APICallError.isInstance(e), e.constructor.name);
      assert.equal(e.statusCode, 404);
      assert.match(e.message, /no-such-model/);
      return `${e.statusCode}: ${e.message}`;
    }
    assert.fail('accepted');
  },
  'LangChain, ChatOpenAI: invoke, stream, stream with usage, batch': async () => {
    const chat = new ChatOpenAI({ ...lc, maxTokens: 5 });
    const m = await chat.invoke('hello');
    assert.equal(m.usage_metadata.output_tokens, 5);
    const p = await pieces(await new ChatOpenAI({ ...lc, maxTokens: 8 }).stream('hello'), (c) => c.content);
    assert.equal(p.n, 8);
    assert.ok(p.spread >= 75, `8 tokens arrived within ${p.spread} ms: buffered`);
    let sum;
    for await (const c of await new ChatOpenAI({ ...lc, maxTokens: 4, streamUsage: true }).stream('hello')) {
      sum = sum ? sum.concat(c) : c;
    }
    assert.equal(sum.usage_metadata.output_tokens, 4);
    assert.equal((await chat.batch(['a', 'b', 'c'])).length, 3);
    return `"${m.content}"; 8 chunks over ${p.spread} ms`;
  },
  'LangChain, OpenAI (completions) and ChatOpenAI on the Responses API': async () => {
    const text = await new OpenAI({ ...lc, maxTokens: 5 }).invoke('hello');
    assert.equal(text.trim().split(' ').length, 5);
    const r = await new ChatOpenAI({ ...lc, maxTokens: 16, useResponsesApi: true }).invoke('hello');
    assert.equal(r.usage_metadata.output_tokens, 16);
    return `"${text}"; responses ${r.usage_metadata.output_tokens} tokens`;
  },
  'embeddings: the AI SDK (floats) and LangChain (base64) get the same vectors': async () => {
    const a = (await embedMany({ model: ai.embedding(model), values: inputs })).embeddings;
    const b = await new OpenAIEmbeddings(lc).embedDocuments(inputs);
    assert.equal(a.length, 2);
    assert.ok(a[0].length > 0);
    assert.deepEqual(b.map((v) => Array.from(v)), a);
    return `2 x ${a[0].length} floats`;
  },
};

await runChecks(checks, `ai ${version('ai')}, @ai-sdk/openai ${version('@ai-sdk/openai')}, `
  + `@langchain/openai ${version('@langchain/openai')}`);
