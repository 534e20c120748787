// Bursts of concurrent writes on one stream each, against a running service (FUZZ_BASE, FUZZ_ACCOUNT_KEY):
// secret rotations of one endpoint, favourites of one image with deletes, capability switches.
// Every answer must be below 500 (409 conflict / duplicate_favourite are the expected refusals).
const base = process.env.FUZZ_BASE;
const key = process.env.FUZZ_ACCOUNT_KEY;
const call = (method, path, body) =>
  fetch(base + path, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined }).then(
    async (response) => ({ status: response.status, body: await response.json().catch(() => null) }),
  );

const statuses = [];
const burst = async (n, make) => statuses.push(...(await Promise.all(Array.from({ length: n }, (_, i) => make(i)))).map((answer) => answer.status));

const hook = await call('POST', '/v1/webhooks', { url: 'https://example.com/contention', enabled_events: ['vote.created'] });
if (hook.status === 201) await burst(20, () => call('POST', `/v1/webhooks/${hook.body.id}/rotate-secret`));
else statuses.push(hook.status);
for (let round = 0; round < 3; round++) {
  await burst(20, () => call('POST', '/v1/favourites', { image_id: 'contention', sub_id: 'c' }));
  const list = await call('GET', '/v1/favourites?image_id=contention&sub_id=c');
  const ids = Array.isArray(list.body) ? list.body.map((favourite) => favourite.id) : [];
  await burst(ids.length * 5, (i) => call('DELETE', `/v1/favourites/${ids[i % ids.length]}`));
}
await burst(20, (i) => call('PATCH', '/v1/accounts/capabilities', { capabilities: { votes: i % 2 === 0 } }));
await call('PATCH', '/v1/accounts/capabilities', { capabilities: { votes: true } });

const counts = new Map();
for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
console.log(`   ${statuses.length} concurrent writes: ${[...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${status} ×${n}`).join(', ')}`);
if (statuses.some((status) => status >= 500)) process.exit(1);
