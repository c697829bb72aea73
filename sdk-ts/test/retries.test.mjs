// Retries against a loopback stand-in for a proxy that answers 503 while the API restarts.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';

import { APIConnectionError, ReasonForge, ServerError } from '../dist/index.js';

function restarting(failures) {
  const seen = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push([req.method, req.headers['idempotency-key'] ?? null]);
      const failing = seen.length <= failures;
      const body = failing
        ? { error: { code: 'restarting', message: 'back soon', field: null } }
        : { task_id: 't1', status: 'queued', steps_total: 1 };
      res.writeHead(failing ? 503 : 202, { 'content-type': 'application/json', ...(failing ? { 'retry-after': '0' } : {}) });
      res.end(JSON.stringify(body));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, seen, baseUrl: `http://127.0.0.1:${server.address().port}` }));
  });
}

test('a submit is retried with one idempotency key', async () => {
  const { server, seen, baseUrl } = await restarting(2);
  try {
    const rf = new ReasonForge({ apiKey: 'rf_x', baseUrl, maxRetries: 2 });
    const job = await rf.submit({ reasoningChain: ['x = 1'], domain: 'mathematics' });
    assert.equal(job.status, 'queued');
    assert.deepEqual(seen.map(([method]) => method), ['POST', 'POST', 'POST']);
    assert.equal(new Set(seen.map(([, key]) => key)).size, 1);
    assert.match(seen[0][1], /^sdk-/);
  } finally {
    server.close();
  }
});

test('retries run out into a ServerError', async () => {
  const { server, seen, baseUrl } = await restarting(5);
  try {
    const rf = new ReasonForge({ apiKey: 'rf_x', baseUrl, maxRetries: 1 });
    await assert.rejects(rf.get('t1'), (err) => err instanceof ServerError && err.status === 503 && err.retryAfter === 0);
    assert.equal(seen.length, 2);
  } finally {
    server.close();
  }
});

test('a refused connection is an APIConnectionError', async () => {
  const { server, baseUrl } = await restarting(0);
  await new Promise((resolve) => server.close(resolve));
  const rf = new ReasonForge({ apiKey: 'rf_x', baseUrl, maxRetries: 0 });
  await assert.rejects(rf.get('t1'), APIConnectionError);
});
