// The web console end to end in headless Chromium, against a running server: node console-e2e.mjs BASE_URL OUT_DIR.
// One line per step ("STEP ok <name>" / "STEP FAIL <name>: <why>"), a screenshot per view under OUT_DIR, exit 1 on
// the first failed step. Waits are conditions with generous deadlines (a loaded machine), never sleeps.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, out] = process.argv.slice(2);
if (!base || !out) {
  console.error('usage: node console-e2e.mjs BASE_URL OUT_DIR');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const WAIT = 30_000;
const suffix = Date.now().toString(16);
const secrets = []; // every token the test sees: none may appear in a URL the browser asks for
const urls = [];

async function api(method, path, token, body) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = 'Bearer ' + token;
  const r = await fetch(base + '/mp/v0' + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

let current = null;
async function step(name, fn) {
  try {
    await fn();
    console.log('STEP ok ' + name);
  } catch (e) {
    console.log('STEP FAIL ' + name + ': ' + (e && e.message ? e.message.split('\n')[0] : e));
    if (current) await current.screenshot({ path: join(out, 'failed.png'), fullPage: true }).catch(() => {});
    throw e;
  }
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

const profile = mkdtempSync(join(tmpdir(), 'mp-console-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 900 },
});
context.setDefaultTimeout(WAIT);
const consoleErrors = [];
context.on('request', (r) => urls.push(r.url()));
context.on('page', (p) => p.on('pageerror', (e) => consoleErrors.push(e.message)));

let failed = false;
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  current = page;
  const id = 'console-' + suffix;

  await step('the console loads at / and lists monitors', async () => {
    await page.goto(base + '/');
    await page.locator('[data-testid="create-form"]').waitFor();
    await page.locator('[data-testid="monitors"] article, [data-testid="no-monitors"]').first().waitFor();
  });

  await step('create a public monitor', async () => {
    const form = page.locator('[data-testid="create-form"]');
    await form.locator('input[name="id"]').fill(id);
    await form.locator('input[name="name"]').fill('Console CI');
    await form.locator('select[name="visibility"]').selectOption('public');
    await form.locator('input[name="types"]').fill('com.example.ci.run');
    await form.locator('[data-testid="create-submit"]').click();
    await page.locator('[data-testid="created"]').waitFor();
    await page.locator(`[data-testid="monitor-${id}"]`).waitFor();
    const kept = await page.evaluate(() => sessionStorage.getItem('mp.console.v1'));
    const owner = JSON.parse(kept).monitors[id].owner;
    check(owner && owner.length > 20, 'the owner token is kept in sessionStorage');
    secrets.push(owner);
    await page.screenshot({ path: join(out, 'list.png'), fullPage: true });
  });

  await step('subscribe and follow the live feed', async () => {
    await page.locator('[data-testid="open-created"]').click();
    await page.locator('[data-testid="subscribe-form"]').waitFor();
    await page.locator('[data-testid="subscribe-form"] input[name="subscriber"]').fill('human:console');
    await page.locator('[data-testid="subscribe-submit"]').click();
    await page.locator('[data-testid="subscribed"]').waitFor();
    await page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();
    // The log so far: the configured row (1) and the subscribed row (2), read from the stream.
    await page.locator('[data-testid="row-1"]').waitFor();
    await page.locator('[data-testid="row-2"]').waitFor();
    const kept = JSON.parse(await page.evaluate(() => sessionStorage.getItem('mp.console.v1')));
    for (const s of Object.values(kept.subscriptions)) secrets.push(s.token);
  });

  await step('publish: the row appears live', async () => {
    const form = page.locator('[data-testid="publish-form"]');
    await form.locator('input[name="subject"]').fill('build-412');
    await form.locator('input[name="actor"]').fill('probe:ci');
    await form.locator('select[name="origin"]').selectOption('probe');
    await form.locator('[data-testid="publish-data"]').fill('{"status":"failed"}');
    await form.locator('[data-testid="publish-submit"]').click();
    await page.locator('[data-testid="published"]').waitFor();
    const row = page.locator('[data-testid="row-3"]');
    await row.waitFor();
    const text = await row.innerText();
    check(text.includes('com.example.ci.run') && text.includes('build-412'), 'row 3 is the publish: ' + text);
  });

  await step('ack to the next seq: lag 0', async () => {
    const sub = page.locator('[data-testid^="sub-sub-"]').first();
    await page.waitForFunction(() => document.querySelector('[data-testid="ack-cursor"]').value === '4');
    await sub.locator('[data-testid="ack"]').click();
    await page.locator('[data-testid="acked"]').waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid^="sub-sub-"] [data-testid="lag"]').textContent === '0');
    const cursor = await sub.locator('[data-testid="cursor"]').innerText();
    check(cursor === '4', 'the cursor is 4 after the ack, not ' + cursor);
    await page.locator('[data-testid="state-head"]').waitFor();
    await page.screenshot({ path: join(out, 'monitor.png'), fullPage: true });
  });

  await step('a refused publish shows its code and message', async () => {
    const form = page.locator('[data-testid="publish-form"]');
    await form.locator('select[name="origin"]').selectOption('probe');
    await form.locator('select[name="tier"]').selectOption('src');
    await form.locator('[data-testid="publish-submit"]').click();
    const refusal = page.locator('[data-testid="publish-result"] [data-testid="refusal"]');
    await refusal.waitFor();
    const code = await refusal.locator('[data-testid="refusal-code"]').innerText();
    const message = await refusal.locator('[data-testid="refusal-message"]').innerText();
    check(code === 'TIER_NOT_ASSERTABLE', 'the code shown is ' + code);
    check(message.includes("tier 'src'"), 'the message shown is the server\u2019s: ' + message);
    // The refusal is recorded, and the feed shows its rejected row live.
    await page.locator('[data-testid="row-4"].rejected-row').waitFor();
    await page.screenshot({ path: join(out, 'refusal.png'), fullPage: true });
  });

  await step('pause and resume are recorded', async () => {
    const actions = page.locator('[data-testid="actions"]');
    await actions.locator('input[name="reason"]').fill('maintenance');
    await actions.locator('[data-testid="pause"]').click();
    await actions.locator('[data-testid="paused"]').waitFor();
    await page.locator('[data-testid="state"] [data-testid="live"]', { hasText: 'paused' }).waitFor();
    await actions.locator('[data-testid="resume"]').click();
    await actions.locator('[data-testid="resumed"]').waitFor();
    await page.locator('[data-testid="state"] [data-testid="live"]', { hasText: 'live' }).waitFor();
  });

  await step('a duplicate create shows DUPLICATE', async () => {
    await page.goto(base + '/#/');
    const form = page.locator('[data-testid="create-form"]');
    await form.locator('input[name="id"]').fill(id);
    await form.locator('[data-testid="create-submit"]').click();
    const code = await page.locator('[data-testid="create-result"] [data-testid="refusal-code"]').innerText();
    check(code === 'DUPLICATE', 'the code shown is ' + code);
    const message = await page.locator('[data-testid="create-result"] [data-testid="refusal-message"]').innerText();
    check(message.length > 0, 'a message is shown');
  });

  const privateId = 'console-private-' + suffix;
  const created = await api('POST', '/monitors', null, { id: privateId, visibility: 'private', types: ['com.example.secret'] });
  check(created.status === 201, 'the private monitor was created: ' + JSON.stringify(created.body));
  const privateToken = created.body.owner_token;
  secrets.push(privateToken);

  // A new tab has its own sessionStorage: it holds none of the first tab's tokens.
  const fresh = await context.newPage();
  current = fresh;

  await step('a private monitor is invisible without its token', async () => {
    await fresh.goto(base + '/');
    await fresh.locator('[data-testid="monitors"] article, [data-testid="no-monitors"]').first().waitFor();
    await fresh.locator(`[data-testid="monitor-${id}"]`).waitFor();
    check((await fresh.locator(`[data-testid="monitor-${privateId}"]`).count()) === 0, 'the private monitor is listed');
    await fresh.goto(base + '/#/m/' + privateId);
    const code = await fresh.locator('[data-testid="refusal-code"]').innerText();
    check(code === 'NOT_FOUND', 'reading it is refused NOT_FOUND, not ' + code);
  });

  await step('and visible with it', async () => {
    const form = fresh.locator('[data-testid="token-form"]');
    await form.locator('select[name="kind"]').selectOption('owner');
    await form.locator('input[name="id"]').fill(privateId);
    await form.locator('[data-testid="token-input"]').fill(privateToken);
    await form.locator('[data-testid="token-submit"]').click();
    await fresh.locator('[data-testid="publish-form"]').waitFor();
    await fresh.goto(base + '/#/');
    await fresh.locator(`[data-testid="monitor-${privateId}"]`).waitFor();
    await fresh.screenshot({ path: join(out, 'private.png'), fullPage: true });
  });

  await step('a silent source is marked stale, with the server\u2019s reason', async () => {
    const quiet = 'console-quiet-' + suffix;
    const made = await api('POST', '/monitors', null, { id: quiet, visibility: 'public', ttl_seconds: 1 });
    check(made.status === 201, 'the quiet monitor was created: ' + JSON.stringify(made.body));
    await fresh.goto(base + '/#/');
    // The list refreshes every 5 s; the gap holds once the monitor is older than its ttl.
    const card = fresh.locator(`[data-testid="monitor-${quiet}"]`);
    await card.locator('[data-testid="stale"]').waitFor();
    const reason = await card.locator('[data-testid="gap-stale_source"] [data-testid="gap-reason"]').innerText();
    check(reason.includes('ttl_seconds'), 'the reason shown is the server\u2019s: ' + reason);
  });

  await step('no token in any URL the browser asked for, no script error', async () => {
    for (const u of urls) for (const s of secrets) check(!u.includes(s), 'a token in ' + u);
    check(!fresh.url().includes(privateToken), 'the token in the address');
    check(consoleErrors.length === 0, 'script errors: ' + consoleErrors.join('; '));
  });
} catch (e) {
  failed = true;
} finally {
  await context.close().catch(() => {});
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
