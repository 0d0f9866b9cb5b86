// The official OpenAI Node SDK against a running gateway: what a client written for OpenAI gets from Caravan.
// Run by it-tests/clients/openai-node.sh (which starts the gateway and two simulated engines); usage:
//   node check.mjs BASE_URL MODEL [regular|pd]
// With pd the engines are a prefill and a decode engine behind --pd-disaggregation: decisions name both legs, and
// embeddings and the Responses API, which need a regular worker, are 503. Prints one line per check and exits 1 at the
// first that fails.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { VERSION } from 'openai/version';
import { runChecks } from './run-checks.mjs';

const [base, model, mode = 'regular'] = process.argv.slice(2);
const pd = mode === 'pd';
const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'none', maxRetries: 0 });
const user = (content) => [{ role: 'user', content }];

async function workers() {
  return (await (await fetch(`${base}/workers`)).json()).workers;
}

async function loads() {
  return (await workers()).map((w) => w.load);
}

/** The in-flight count of the workers that stream answers: all of them, or with P/D the decode workers. */
async function streamingLoad() {
  return (await workers()).filter((w) => !pd || w.worker_type === 'decode').reduce((sum, w) => sum + w.load, 0);
}

async function loadsBackToZero() {
  for (let i = 0; i < 50; i++) {
    if ((await loads()).every((l) => l === 0)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`workers' load did not return to 0: ${await loads()}`);
}

async function rejects(name, call, type, status, message) {
  try {
    await call();
  } catch (e) {
    assert.ok(e instanceof type, `${name}: ${e.constructor.name} instead of ${type.name}`);
    assert.equal(e.status, status, name);
    assert.match(e.message, message, name);
    return `${e.constructor.name} ${e.status}: ${e.message}`;
  }
  assert.fail(`${name}: accepted`);
}

const checks = {
  'models.list names the engines\' model': async () => {
    const ids = (await client.models.list()).data.map((m) => m.id);
    assert.deepEqual(ids, [model]);
    return ids.join(',');
  },
  'models.retrieve finds the model by its id (slash and all) and 404s an unknown one': async () => {
    const m = await client.models.retrieve(model);
    assert.equal(m.id, model);
    assert.equal(m.object, 'model');
    const missing = await rejects('unknown model', () => client.models.retrieve('no-such-model'),
      OpenAI.NotFoundError, 404, /no-such-model/);
    return `${m.id}; ${missing}`;
  },
  'chat completion, then the same prompt again on the same engine as a cache hit': async () => {
    const messages = user('Tell me about caravans, the SDK check');
    const first = await client.chat.completions.create({ model, messages, max_tokens: 8 }).withResponse();
    const again = await client.chat.completions.create({ model, messages, max_tokens: 8 }).withResponse();
    const chat = first.data;
    assert.equal(chat.object, 'chat.completion');
    assert.equal(chat.choices[0].message.role, 'assistant');
    assert.equal(chat.choices[0].finish_reason, 'length');
    assert.equal(chat.usage.completion_tokens, 8);
    assert.ok(chat.usage.prompt_tokens > 0);
    assert.equal(again.response.headers.get('x-caravan-decision'),
      pd ? 'prefill=cache_aware:cache_hit; decode=cache_aware:cache_hit' : 'cache_aware:cache_hit');
    assert.equal(again.response.headers.get('x-caravan-worker'), first.response.headers.get('x-caravan-worker'));
    return `${first.response.headers.get('x-caravan-decision')} then ${again.response.headers.get('x-caravan-decision')}`;
  },
  'streamed chat arrives token by token, usage last': async () => {
    const start = Date.now();
    const times = [];
    let text = '';
    let usage = null;
    const stream = await client.chat.completions.create({
      model, stream: true, stream_options: { include_usage: true }, max_tokens: 16, messages: user('Hi'),
    });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content;
      if (delta) {
        text += delta;
        times.push(Date.now() - start);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(times.length, 16, 'one content chunk per token');
    assert.equal(usage?.completion_tokens, 16);
    // the engines decode a token every 25 ms: buffered, all 16 would arrive together
    assert.ok(times[15] - times[0] >= 200, `first and last token ${times[15] - times[0]} ms apart`);
    return `16 chunks over ${times[15] - times[0]} ms, ${JSON.stringify(text.slice(0, 24))}...`;
  },
  'completions, whole and streamed': async () => {
    const whole = await client.completions.create({ model, prompt: 'Once upon a time', max_tokens: 8 });
    assert.equal(whole.object, 'text_completion');
    assert.equal(whole.usage.completion_tokens, 8);
    let pieces = 0;
    for await (const c of await client.completions.create({ model, prompt: 'Once upon a time', max_tokens: 8, stream: true })) {
      if (c.choices[0]?.text) pieces++;
    }
    assert.equal(pieces, 8);
    return `${whole.usage.prompt_tokens} prompt tokens, 8 streamed pieces`;
  },
  'a bad request is a BadRequestError with the reason': () => rejects('no messages',
    () => client.chat.completions.create({ model }), OpenAI.BadRequestError, 400, /messages/),
  'an unknown model is a NotFoundError': () => rejects('unknown model',
    () => client.chat.completions.create({ model: 'no-such-model', messages: user('x') }), OpenAI.NotFoundError, 404,
    /no-such-model/),
  'a body that is not JSON is a 415': () => rejects('text/plain',
    () => client.chat.completions.create({ model, messages: user('x') }, { headers: { 'Content-Type': 'text/plain' } }),
    OpenAI.APIError, 415, /application\/json/),
  'a stream the client aborts frees its engine': async () => {
    const ac = new AbortController();
    const stream = await client.chat.completions.create(
      { model, stream: true, max_tokens: 500, messages: user('a long story') }, { signal: ac.signal });
    let chunks = 0;
    let during = null;
    try {
      for await (const _ of stream) {
        if (++chunks === 3) {
          during = await streamingLoad();
          ac.abort();
        }
      }
    } catch (e) {
      assert.ok(e instanceof OpenAI.APIUserAbortError, e.constructor.name);
    }
    assert.equal(during, 1, 'one request in flight before the abort');
    await loadsBackToZero();
    return `aborted after ${chunks} chunks; load 1 -> 0`;
  },
  '20 concurrent streams all complete': async () => {
    const counts = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      let n = 0;
      const s = await client.chat.completions.create({ model, stream: true, max_tokens: 8, messages: user(`p${i}`) });
      for await (const c of s) if (c.choices[0]?.delta?.content) n++;
      return n;
    }));
    assert.deepEqual(counts, Array(20).fill(8));
    await loadsBackToZero();
    return '20 x 8 tokens; load back to 0';
  },
};

// embeddings and the Responses API need a regular worker
Object.assign(checks, pd ? {
  'with P/D, embeddings and the Responses API are 503 naming the regular worker they need': async () => {
    const embeddings = await rejects('embeddings', () => client.embeddings.create({ model, input: ['hello'] }),
      OpenAI.InternalServerError, 503, /regular worker/);
    await rejects('responses', () => client.responses.create({ model, input: 'hello there' }),
      OpenAI.InternalServerError, 503, /regular worker/);
    return embeddings;
  },
} : {
  'embeddings: the SDK\'s default base64 decodes to the float answer': async () => {
    const e = await client.embeddings.create({ model, input: ['hello', 'world'] });
    const f = await client.embeddings.create({ model, input: ['hello', 'world'], encoding_format: 'float' });
    assert.equal(e.data.length, 2);
    assert.ok(f.data[0].embedding.length > 0);
    assert.deepEqual(e.data.map((d) => Array.from(d.embedding)), f.data.map((d) => d.embedding));
    return `2 x ${e.data[0].embedding.length} floats`;
  },
  'Responses API: create, retrieve, stream': async () => {
    const r = await client.responses.create({ model, input: 'hello there', max_output_tokens: 8 });
    assert.equal(r.status, 'completed');
    assert.equal(r.usage.output_tokens, 8);
    assert.equal((await client.responses.retrieve(r.id)).id, r.id);
    const types = new Set();
    for await (const ev of await client.responses.create({ model, input: 'hello there', stream: true, max_output_tokens: 8 })) {
      types.add(ev.type);
    }
    for (const t of ['response.created', 'response.output_text.delta', 'response.completed']) assert.ok(types.has(t), t);
    return `${r.id} retrieved; stream events ${[...types].join(',')}`;
  },
});

await runChecks(checks, `openai ${VERSION}`);
