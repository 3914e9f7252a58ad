// Drives a running limitscope-gateway with the official OpenAI Node SDK, as users do.
//   node openai_sdk_test.cjs SDK_DIR BASE_URL POLICY_JSON SCENARIO
// SDK_DIR holds node_modules/openai (npm ci from this folder's package-lock.json); BASE_URL is
// the gateway (http://127.0.0.1:PORT); POLICY_JSON the policy it runs (tests/e2e/e2e_policy.h:
// free-key has 3 requests refilled at 1/s, pro-key 50 at 20/s). Prints "ok SCENARIO" and exits
// 0 when every check holds; otherwise the failed assertion and exit 1.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const [sdkDir, baseURL, policyPath, scenario] = process.argv.slice(2);
const { OpenAI, APIError } = require(path.join(sdkDir, 'node_modules', 'openai'));
const policy = JSON.parse(fs.readFileSync(policyPath, 'utf8'));
const kMockText = 'This is a mock completion from limitscope-gateway.';

// Every HTTP exchange the SDK makes: when it was sent, when its answer arrived, the answer.
const exchanges = [];
async function recordingFetch(url, init) {
  const sent = performance.now();
  const response = await fetch(url, init);
  exchanges.push({ url: String(url), sent, received: performance.now(), status: response.status,
                   headers: response.headers });
  return response;
}

function client(apiKey, options = {}) {
  return new OpenAI({ apiKey, baseURL: `${baseURL}/v1`, fetch: recordingFetch, ...options });
}

function chatBody(model, extra = {}) {
  return { model, max_tokens: 20, messages: [{ role: 'user', content: 'hello' }], ...extra };
}

// OpenAI's reset durations ("734ms", "1s", "8.64s", "6m0s", "1h2m3.5s") in seconds.
function durationSeconds(text) {
  const ms = /^(\d+)ms$/.exec(text);
  if (ms) return Number(ms[1]) / 1000;
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(\d+(?:\.\d+)?)s$/.exec(text);
  assert.ok(m, `not an OpenAI duration: ${text}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3]);
}

// The IETF fields: {requests: {q, w, r, t}, 'llm-tokens': {...}}.
function ietf(headers) {
  const rules = {};
  for (const [field, keys] of [['ratelimit-policy', ['q', 'w']], ['ratelimit', ['r', 't']]]) {
    const value = headers.get(field);
    assert.ok(value, `no ${field} header`);
    for (const item of value.split(', ')) {
      const [name, ...params] = item.split(';');
      const rule = (rules[JSON.parse(name)] ??= {});
      for (const p of params) {
        const [k, v] = p.split('=');
        if (keys.includes(k)) rule[k] = Number(v);
      }
    }
  }
  return rules;
}

// OpenAI's six headers are present and say what the IETF fields say: requests counted in
// requests of this model (cost units / the model's weight), durations that round up to t.
function checkOpenAiHeadersAgree(headers, model, label) {
  const { requests, 'llm-tokens': tokens } = ietf(headers);
  const cost = policy.models[model].cost;
  const number = (name) => {
    const v = headers.get(name);
    assert.match(v ?? '', /^\d+$/, `${label}: ${name} is ${v}`);
    return Number(v);
  };
  assert.equal(number('x-ratelimit-limit-requests'), Math.floor(requests.q / cost), `${label}: limit-requests`);
  assert.equal(number('x-ratelimit-remaining-requests'), Math.floor(requests.r / cost), `${label}: remaining-requests`);
  assert.equal(Math.ceil(durationSeconds(headers.get('x-ratelimit-reset-requests')) - 1e-9), requests.t,
               `${label}: reset-requests ${headers.get('x-ratelimit-reset-requests')} vs t=${requests.t}`);
  assert.equal(number('x-ratelimit-limit-tokens'), tokens.q, `${label}: limit-tokens`);
  assert.equal(number('x-ratelimit-remaining-tokens'), tokens.r, `${label}: remaining-tokens`);
  assert.equal(Math.ceil(durationSeconds(headers.get('x-ratelimit-reset-tokens')) - 1e-9), tokens.t,
               `${label}: reset-tokens ${headers.get('x-ratelimit-reset-tokens')} vs t=${tokens.t}`);
}

const scenarios = {
  // The SDK retries our 429 after the retry-after-ms we sent, and the retry succeeds.
  async retry() {
    const model = 'gemini-2.5-flash';  // cost 1: free-key's 3 requests, one more each second
    const noRetry = client('free-key', { maxRetries: 0 });
    let drained = 0;
    for (;;) {
      try {
        await noRetry.chat.completions.create(chatBody(model));
        drained++;
      } catch (e) {
        assert.ok(e instanceof APIError && e.status === 429, `drain: ${e}`);
        break;
      }
      assert.ok(drained <= 3, 'free-key admitted more than its 3 requests');
    }
    exchanges.length = 0;
    const completion = await client('free-key', { maxRetries: 2 }).chat.completions.create(chatBody(model));
    assert.equal(completion.choices[0].message.content, kMockText);
    assert.equal(exchanges.length, 2, `expected one 429 then one 200, got ${exchanges.map((x) => x.status)}`);
    const [refused, retried] = exchanges;
    assert.equal(refused.status, 429);
    assert.equal(retried.status, 200);
    const waitMs = Number(refused.headers.get('retry-after-ms'));
    assert.ok(Number.isInteger(waitMs) && waitMs >= 1 && waitMs <= 1000, `retry-after-ms ${waitMs}`);
    assert.equal(Number(refused.headers.get('retry-after')), Math.ceil(waitMs / 1000));
    // The SDK's timer may fire up to a millisecond early (libuv's loop time is cached).
    const waited = retried.sent - refused.received;
    assert.ok(waited >= waitMs - 1, `the SDK retried after ${waited.toFixed(1)} ms; we asked ${waitMs} ms`);
    console.log(`retry: 429 with retry-after-ms ${waitMs}, SDK waited ${waited.toFixed(1)} ms, then 200`);
  },

  // Streaming chat: the chunks arrive and spell the mock's text; the last carries usage.
  async 'stream-chat'() {
    const stream = await client('pro-key').chat.completions.create(
      chatBody('gpt-4.1', { stream: true, stream_options: { include_usage: true } }));
    let text = '';
    let chunks = 0;
    let usage = null;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    assert.equal(text, kMockText);
    assert.equal(chunks, 10);  // role, 8 words, finish with usage
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
  },

  // Streaming responses: typed events, text deltas, response.completed with usage; and the
  // non-streamed response's output_text.
  async 'stream-responses'() {
    const c = client('pro-key');
    const stream = await c.responses.create({ model: 'gpt-4.1', input: 'hello', stream: true });
    let text = '';
    const types = [];
    let completed = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    assert.equal(types[0], 'response.created');
    assert.equal(types.at(-1), 'response.completed');
    assert.equal(text, kMockText);
    assert.ok(completed.usage.total_tokens > 0);
    const plain = await c.responses.create({ model: 'gpt-4.1', input: 'hello', max_output_tokens: 8 });
    assert.equal(plain.output_text, kMockText);
    assert.equal(plain.usage.output_tokens, 8);
  },

  // models.list() returns the policy's models; embeddings answer (the SDK asks base64 and
  // decodes it) with the same vectors as the float format.
  async 'models-embeddings'() {
    const c = client('pro-key');
    const ids = [];
    for await (const model of c.models.list()) ids.push(model.id);
    assert.deepEqual(ids.sort(), Object.keys(policy.models).sort());
    const packed = await c.embeddings.create({ model: 'gpt-4.1', input: ['first', 'second'] });
    const floats = await c.embeddings.create({ model: 'gpt-4.1', input: ['first', 'second'],
                                                encoding_format: 'float' });
    assert.equal(packed.data.length, 2);
    assert.equal(packed.data[1].embedding.length, 16);
    assert.deepEqual(Array.from(packed.data[1].embedding), floats.data[1].embedding);
    assert.equal(packed.usage.prompt_tokens, 3);  // ceil(11 characters / 4)
  },

  // The raw response shows OpenAI's six headers, agreeing with the IETF fields, on an
  // admitted answer and on a 429.
  async headers() {
    const model = 'gpt-4.1';  // cost 2: pro-key's 50 cost units are 25 requests of it
    const { response } = await client('pro-key').chat.completions.create(chatBody(model)).withResponse();
    checkOpenAiHeadersAgree(response.headers, model, 'allowed');
    assert.equal(response.headers.get('x-ratelimit-limit-requests'), '25');
    assert.equal(response.headers.get('x-ratelimit-remaining-requests'), '24');
    const noRetry = client('free-key', { maxRetries: 0 });
    let refusal = null;
    for (let i = 0; i < 4 && !refusal; i++) {
      try {
        await noRetry.chat.completions.create(chatBody(model));
      } catch (e) {
        assert.ok(e instanceof APIError && e.status === 429, `${e}`);
        refusal = e;
      }
    }
    assert.ok(refusal, 'free-key was never refused');
    checkOpenAiHeadersAgree(refusal.headers, model, 'denied');
    assert.match(refusal.headers.get('retry-after-ms') ?? '', /^\d+$/);
  },
};

(async () => {
  assert.ok(scenarios[scenario], `unknown scenario ${scenario}`);
  await scenarios[scenario]();
  console.log(`ok ${scenario}`);
})().catch((e) => {
  console.error(`FAILED ${scenario}: ${e.stack ?? e}`);
  process.exit(1);
});
