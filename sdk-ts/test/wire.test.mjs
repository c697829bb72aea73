// camelCase <-> snake_case mapping and error parsing, on the built package (no server needed).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  AuthenticationError,
  InvalidResponseError,
  RateLimitError,
  ReasonForge,
  ReasonForgeAPIError,
  ReasonForgeInputError,
  ServerError,
  errorFromResponse,
} from '../dist/index.js';
import { reasoningToWire, requestToWire, responseFromWire, statsFromWire } from '../dist/wire.js';

test('requests go out in the API snake_case, strings numbered 1..n', () => {
  const body = requestToWire({
    reasoningChain: [{ stepId: 1, content: 'Let x = 3', claimedConclusion: 'x = 3', dependencies: [] }, 'so x = 3'],
    domain: 'mathematics',
    originalQuery: 'q',
    claimedAnswer: 'x = 3',
    proofLevel: 'quick',
    generateCertificate: false,
    translations: [{ stepId: 1, formalRepresentation: 'x = 3', language: 'sympy' }],
  });
  assert.deepEqual(body, {
    reasoning_chain: [
      { step_id: 1, content: 'Let x = 3', claimed_conclusion: 'x = 3', dependencies: [] },
      { step_id: 2, content: 'so x = 3' },
    ],
    domain: 'mathematics',
    original_query: 'q',
    claimed_answer: 'x = 3',
    proof_level: 'quick',
    generate_certificate: false,
    translations: [{ step_id: 1, formal_representation: 'x = 3', language: 'sympy' }],
  });
});

test('who translates travels as translator, samples and agree', () => {
  const body = requestToWire({ reasoningChain: ['a'], domain: 'logic', translator: 'ensemble', samples: 3, agree: 2 });
  assert.deepEqual([body.translator, body.samples, body.agree], ['ensemble', 3, 2]);
  const reasoning = reasoningToWire('Step 1: a', { domain: 'logic', translator: 'model', samples: 2 });
  assert.deepEqual([reasoning.translator, reasoning.samples, reasoning.agree], ['model', 2, undefined]);
});

test('a reference answer goes out as reference_answer and its check comes back in camelCase', () => {
  assert.equal(requestToWire({ reasoningChain: ['a'], domain: 'mathematics', referenceAnswer: '72' }).reference_answer, '72');
  assert.equal(reasoningToWire('Step 1: a', { domain: 'mathematics', referenceAnswer: '\\frac{1}{2}' }).reference_answer,
    '\\frac{1}{2}');
  const got = responseFromWire({
    task_id: 't', status: 'complete', verdict: 'PARTIAL', answer_matches_reference: false,
    reference_check: { reference: '73', matches: false, compared_by: 'reader', message: 'not the final value: 72' },
  }, 'GET /v1/verify/t');
  assert.equal(got.answerMatchesReference, false);
  assert.deepEqual(got.referenceCheck, { reference: '73', matches: false, comparedBy: 'reader', message: 'not the final value: 72' });
  const none = responseFromWire({ task_id: 't', status: 'queued' }, 'x');
  assert.deepEqual([none.answerMatchesReference, none.referenceCheck], [null, null]);
  assert.throws(() => responseFromWire({ task_id: 't', status: 'complete', reference_check: { reference: 1 } }, 'x'),
    InvalidResponseError);
  assert.throws(() => requestToWire({ reasoningChain: ['a'], domain: 'logic', referenceAnswer: 5 }), ReasonForgeInputError);
});

test('bad requests are refused before sending, naming the field', () => {
  const cases = [
    [{ reasoningChain: [], domain: 'logic' }, 'reasoningChain'],
    [{ reasoningChain: ['a'], domain: 'biology' }, 'domain'],
    [{ reasoningChain: ['a'], domain: 'logic', proofLevel: 'slow' }, 'proofLevel'],
    [{ reasoningChain: [{ stepId: 1.5, content: 'a' }], domain: 'logic' }, 'reasoningChain[0].stepId'],
    [{ reasoningChain: [{ stepId: 1, content: 7 }], domain: 'logic' }, 'reasoningChain[0].content'],
    [{ reasoningChain: [{ stepId: 1, content: 'a', dependencies: ['x'] }], domain: 'logic' }, 'reasoningChain[0].dependencies'],
    [{ reasoningChain: ['a'], domain: 'logic', translations: [{ stepId: 1, formalRepresentation: 'p', language: 'x' }] },
      'translations[0].language'],
    [{ reasoningChain: ['a'], domain: 'logic', translator: 'oracle' }, 'translator'],
    [{ reasoningChain: ['a'], domain: 'logic', samples: 0 }, 'samples'],
    [{ reasoningChain: ['a'], domain: 'logic', samples: 2.5 }, 'samples'],
    [{ reasoningChain: ['a'], domain: 'logic', agree: 10 }, 'agree'],
  ];
  for (const [request, field] of cases) {
    assert.throws(() => requestToWire(request), (err) => err instanceof ReasonForgeInputError && err.field === field);
  }
});

test('responses come back in camelCase and odd ones are refused', () => {
  const job = responseFromWire({
    task_id: 't1', status: 'complete', verdict: 'PARTIAL', steps_verified: 2, steps_total: 4,
    failure_points: [{ step_id: 3, original_content: 'c', error: 'e', suggested_fix: null, cascade_impact: [4] }],
    certificate_id: null, certificate_url: null, verification_time_ms: 12, cost_credits: 0.18,
    steps: [{ step_id: 1, status: 'verified', verified: true, checker: 'sympy-relations 3', message: null,
      aligned_claim: 'x = 3', evidence: 'claim' }],
  }, 'test');
  assert.equal(job.stepsVerified, 2);
  assert.deepEqual(job.steps, [{ stepId: 1, status: 'verified', verified: true, checker: 'sympy-relations 3',
    message: null, alignedClaim: 'x = 3', evidence: 'claim', assumptions: [] }]);
  assert.deepEqual(job.failurePoints, [{ stepId: 3, originalContent: 'c', error: 'e', suggestedFix: null, cascadeImpact: [4] }]);
  for (const body of [null, [], { status: 'complete' }, { task_id: 't', status: 'done' },
    { task_id: 't', status: 'complete', verdict: 'MAYBE' }, { task_id: 't', status: 'queued', steps_total: '4' },
    { task_id: 't', status: 'complete', failure_points: [{ step_id: 1 }] },
    { task_id: 't', status: 'complete', steps: [{ step_id: 1, status: 'done', verified: true }] }]) {
    assert.throws(() => responseFromWire(body, 'test'), InvalidResponseError);
  }
});

test('error bodies become typed errors', () => {
  const headers = new Headers({ 'retry-after': '3' });
  const limited = errorFromResponse(429, headers, JSON.stringify({ error: { code: 'rate_limited', message: 'slow', field: null } }));
  assert.ok(limited instanceof RateLimitError && limited instanceof ReasonForgeAPIError);
  assert.equal(limited.retryAfter, 3);
  assert.equal(limited.message, 'HTTP 429 rate_limited: slow');
  const unauthorized = errorFromResponse(401, new Headers(), JSON.stringify({ error: { code: 'unauthorized', message: 'no key', field: 'authorization' } }));
  assert.ok(unauthorized instanceof AuthenticationError);
  assert.equal(unauthorized.field, 'authorization');
  const proxy = errorFromResponse(502, new Headers({ 'retry-after': 'later' }), '<html>bad gateway</html>');
  assert.ok(proxy instanceof ServerError);
  assert.equal(proxy.retryAfter, null);
  assert.match(proxy.message, /the server answered HTTP 502: <html>/);
});

test('the constructor refuses unusable settings', () => {
  assert.throws(() => new ReasonForge({ baseUrl: 'ftp://example.org' }), ReasonForgeInputError);
  assert.throws(() => new ReasonForge({ baseUrl: 'not a url' }), ReasonForgeInputError);
  assert.throws(() => new ReasonForge({ apiKey: 'rf_a b' }), ReasonForgeInputError);
  assert.equal(new ReasonForge({ baseUrl: 'http://127.0.0.1:9/' }).baseUrl, 'http://127.0.0.1:9');
});

test('stats are checked and mapped', () => {
  const stats = statsFromWire({
    jobs: { complete: 2 }, verdicts: { VERIFIED: 2 }, steps_total: 8, steps_verified: 8,
    certificates_issued: 0, mean_verification_time_ms: null, queue: 'inprocess',
  }, 'test');
  assert.equal(stats.stepsVerified, 8);
  assert.equal(stats.meanVerificationTimeMs, null);
  assert.throws(() => statsFromWire({ jobs: { complete: 'two' } }, 'test'), InvalidResponseError);
  assert.throws(() => statsFromWire('<html>', 'test'), InvalidResponseError);
});

test('reasoning goes out as sent, its options in snake_case, bad ones refused', () => {
  const completion = { object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'x = 3' } }] };
  assert.deepEqual(reasoningToWire(completion, { domain: 'logic', originalQuery: 'q', source: 'answer' }), {
    reasoning: completion,
    domain: 'logic',
    original_query: 'q',
    source: 'answer',
  });
  assert.deepEqual(reasoningToWire('Step 1: x', { domain: 'code', claimedAnswer: '3', proofLevel: 'quick' }), {
    reasoning: 'Step 1: x',
    domain: 'code',
    claimed_answer: '3',
    proof_level: 'quick',
  });
  assert.throws(() => reasoningToWire(['a'], { domain: 'logic' }), (e) => e instanceof ReasonForgeInputError && e.field === 'reasoning');
  assert.throws(() => reasoningToWire('a', { domain: 'chemistry' }), (e) => e.field === 'domain');
  assert.throws(() => reasoningToWire('a', { domain: 'logic', source: 'both' }), (e) => e.field === 'source');
});
