// The TypeScript client against a live `reasonforge serve` (started here, on a free loopback port).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PaymentRequiredError,
  ReasonForge,
  VerificationTimeoutError,
} from '../dist/index.js';
import { startService } from './server.mjs';

const PYTHAGORAS = {
  reasoningChain: [
    { stepId: 1, content: 'Let x = 3 and y = 4' },
    { stepId: 2, content: 'By Pythagorean theorem, x² + y² = z²' },
    { stepId: 3, content: 'So z² = 9 + 16 = 25' },
    { stepId: 4, content: 'Therefore z = 5' },
  ],
  domain: 'mathematics',
  originalQuery: 'Find the hypotenuse of a right triangle with legs 3 and 4',
  claimedAnswer: 'z = 5',
};

const PENCILS = {
  reasoningChain: [
    { stepId: 1, content: 'Three packs of 12 pencils hold 3 × 12 = 36 pencils.' },
    { stepId: 2, content: 'After giving away 9 he has 36 - 9 = 27 pencils.' },
    { stepId: 3, content: 'Two more packs bring him to 27 + 2 × 12 = 53 pencils.' },
    { stepId: 4, content: 'So Tom has 53 pencils.' },
  ],
  domain: 'mathematics',
  originalQuery: 'Tom buys 3 packs of 12 pencils, gives away 9 pencils, then buys 2 more packs. How many pencils does he have?',
  claimedAnswer: '53',
};

let service;
let rf;

before(async () => {
  service = await startService();
  rf = new ReasonForge({ apiKey: service.createKey('sdk-ts', '--tier', 'enterprise'), baseUrl: service.baseUrl });
});

after(async () => {
  await service?.stop();
});

test('verifyMany queues a batch, returns each verdict in order, and listTasks pages through them', async () => {
  const quick = { proofLevel: 'quick', generateCertificate: false };
  const results = await rf.verifyMany([{ ...PYTHAGORAS, ...quick }, { ...PENCILS, ...quick, referenceAnswer: '53' }],
    { timeoutS: 120 });
  assert.deepEqual(results.map((r) => r.verdict), ['VERIFIED', 'PARTIAL']);
  assert.equal(results[1].answerMatchesReference, true);
  const first = await rf.listTasks({ limit: 1 });
  assert.equal(first.tasks.length, 1);
  assert.ok(first.nextCursor);
  const rest = await rf.listTasks({ limit: 100, cursor: first.nextCursor });
  const ids = [...first.tasks, ...rest.tasks].map((t) => t.taskId);
  for (const r of results) assert.ok(ids.includes(r.taskId));
  await assert.rejects(rf.submitMany([{ ...PYTHAGORAS }, { reasoningChain: [], domain: 'logic' }]), /requests\[1\]/);
  await assert.rejects(rf.listTasks({ limit: 0 }), /limit/);
});

test('verify returns the verdict in camelCase', async () => {
  const result = await rf.verify({ ...PYTHAGORAS, proofLevel: 'quick', generateCertificate: false }, { timeoutS: 120 });
  assert.equal(result.status, 'complete');
  assert.equal(result.verdict, 'VERIFIED');
  assert.equal(result.stepsVerified, 4);
  assert.equal(result.stepsTotal, 4);
  assert.deepEqual(result.failurePoints, []);
  assert.equal(result.certificateUrl, null);
  assert.deepEqual(result.steps.map((s) => [s.stepId, s.status, s.verified]),
    [[1, 'verified', true], [2, 'verified', true], [3, 'verified', true], [4, 'verified', true]]);
  assert.match(result.steps[0].checker, /^sympy-relations /);
  assert.match(result.verdictDigest, /^[0-9a-f]{64}$/);
  assert.ok(Math.abs(result.costCredits - 0.18) < 1e-9);
});

test('a false step comes back with its cascade', async () => {
  const result = await rf.verify({ ...PENCILS, proofLevel: 'quick', generateCertificate: false }, { timeoutS: 120 });
  assert.equal(result.verdict, 'PARTIAL');
  assert.equal(result.failurePoints.length, 1);
  const [failure] = result.failurePoints;
  assert.equal(failure.stepId, 3);
  assert.deepEqual(failure.cascadeImpact, [4]);
  assert.match(failure.error, /51/);
  assert.deepEqual(result.steps.map((s) => s.status), ['verified', 'verified', 'failed', 'invalidated']);
  assert.match(result.steps[2].message, /51/);
});

test('verifyText and verifyResponse: the server splits the reasoning', async () => {
  const question = 'x = 3, y = 4: what is x + y?';
  const text = await rf.verifyText('Step 1: Let x = 3 and y = 4.\nStep 2: So x + y = 7.\n#### 7',
    { domain: 'mathematics', originalQuery: question, proofLevel: 'quick', generateCertificate: false }, { timeoutS: 120 });
  assert.equal(text.verdict, 'VERIFIED');
  assert.equal(text.stepsTotal, 2);
  const completion = {
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', reasoning_content: 'Let x = 3 and y = 4.\n\nSo x + y = 8.', content: 'The answer is 8.' } }],
  };
  const response = await rf.verifyResponse(completion,
    { domain: 'mathematics', originalQuery: question, proofLevel: 'quick', generateCertificate: false }, { timeoutS: 120 });
  assert.notEqual(response.verdict, 'VERIFIED');
  assert.equal(response.failurePoints[0].stepId, 2);
  await assert.rejects(rf.verifyText({ a: 1 }, { domain: 'logic' }), (e) => e.field === 'reasoning');
  await assert.rejects(rf.verifyResponse({ object: 'chat.completion', choices: [] }, { domain: 'logic' }),
    (e) => e.status === 422 && /no choices/.test(e.message));
});

test('submit, get, wait and idempotency', async () => {
  const request = { ...PENCILS, proofLevel: 'quick', generateCertificate: false };
  const queued = await rf.verify(request, { wait: false, idempotencyKey: 'ts-idem-1' });
  const again = await rf.submit(request, { idempotencyKey: 'ts-idem-1' });
  assert.equal(again.taskId, queued.taskId);
  await assert.rejects(rf.submit({ ...PYTHAGORAS, proofLevel: 'quick' }, { idempotencyKey: 'ts-idem-1' }), ConflictError);
  const done = await rf.wait(queued.taskId, 120);
  assert.equal(done.verdict, 'PARTIAL');
  assert.deepEqual(await rf.get(queued.taskId), done);
});

test('wait long-polls the server instead of asking in a loop', async () => {
  const gets = [];
  const counting = new ReasonForge({
    apiKey: service.createKey('sdk-ts-poll', '--tier', 'enterprise'),
    baseUrl: service.baseUrl,
    fetch: (url, init) => {
      if (init?.method === 'GET') gets.push(String(url));
      return globalThis.fetch(url, init);
    },
  });
  // A formal proof takes seconds: polling on its own, the client would ask a dozen times meanwhile.
  const job = await counting.submit({ ...PYTHAGORAS, proofLevel: 'formal', generateCertificate: false });
  const started = Date.now();
  const done = await counting.wait(job.taskId, 240);
  const tookS = (Date.now() - started) / 1000;
  assert.equal(done.status, 'complete');
  assert.ok(gets.length >= 1 && gets.every((url) => url.includes('?wait=')), gets.join(' '));
  assert.ok(gets.length <= 2 + Math.floor(tookS / 25), `${gets.length} requests in ${tookS} s`);
});

test('stats are typed', async () => {
  const stats = await rf.stats();
  assert.ok(stats.jobs.complete >= 1);
  assert.equal(typeof stats.stepsTotal, 'number');
  assert.equal(stats.queue, 'inprocess');
});

test('typed errors: 404, 401, 402, timeout', async () => {
  await assert.rejects(rf.get('0123456789abcdef0123456789abcdef'), (err) => err instanceof NotFoundError && err.status === 404);
  const missingCert = `0x${'0'.repeat(64)}`;
  await assert.rejects(rf.certificate(missingCert), NotFoundError);
  await assert.rejects(rf.verifyCertificate(missingCert), NotFoundError);
  const anonymous = new ReasonForge({ baseUrl: service.baseUrl });
  await assert.rejects(anonymous.submit({ ...PYTHAGORAS, proofLevel: 'quick' }), (err) => err instanceof AuthenticationError && err.status === 401);
  const free = new ReasonForge({ apiKey: service.createKey('sdk-ts-free', '--tier', 'free'), baseUrl: service.baseUrl });
  await assert.rejects(free.submit({ ...PYTHAGORAS, proofLevel: 'formal' }), (err) => err instanceof PaymentRequiredError && err.status === 402);
  const job = await rf.submit({ ...PYTHAGORAS, proofLevel: 'formal', generateCertificate: false });
  await assert.rejects(rf.wait(job.taskId, 0.05), (err) => err instanceof VerificationTimeoutError && err.taskId === job.taskId);
  const finished = await rf.wait(job.taskId, 240);
  assert.equal(finished.status, 'complete');
});
