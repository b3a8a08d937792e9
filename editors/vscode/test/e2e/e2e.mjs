// The extension end to end, as a user meets it: a real VS Code (code-server) in a real browser
// (Debian's chromium, driven by Playwright), the .vsix installed, a workspace whose settings
// point `gradual.server.command` at an installed gradual. The test opens a program with an
// error and sees the squiggle, the Problems entry and a hover with a type; applies the quick
// fix with Ctrl+. and sees the error clear; shows the elaborated program; checks a model file
// from the explorer's context menu; and breaks the server command to see the install hint.
//
//   node e2e.mjs --vsix gradual.vsix --gradual /path/to/venv/bin/gradual --model m.onnx
//                [--settings '{"gradual.server.python": "/path/to/venv/bin/python"}']
//
// Every wait is on a selector or a condition, with a generous timeout (the machine may be
// loaded). On failure: exit 1, with a screenshot and the logs' paths. Screenshots go to
// ../artifacts (gitignored).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: opts } = parseArgs({
  options: {
    vsix: { type: 'string' },
    gradual: { type: 'string' },
    model: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    artifacts: { type: 'string', default: path.join(here, '..', 'artifacts') },
    settings: { type: 'string' }, // JSON: the workspace settings, instead of gradual.server.command = [gradual, lsp]
  },
});
for (const required of ['vsix', 'gradual', 'model']) {
  if (!opts[required]) {
    console.error(`e2e: --${required} is required`);
    process.exit(2);
  }
}

const WAIT = 120_000; // for the server's first answer: start-up, import, first check
const SHORT = 30_000; // for the editor's own widgets
const CODE_SERVER = path.join(here, 'node_modules', '.bin', 'code-server');
const started = Date.now();
const log = (message) => console.log(`e2e: [${((Date.now() - started) / 1000).toFixed(1)} s] ${message}`);

const PROGRAM = `// A misspelt operator: gradual suggests the operator meant, as a quick fix.
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(?, 3), float32]) {
  %0 = nn.rleu(%x);
  add(%0, %y)
}
`;

// a scratch directory: user data, extensions, the workspace, code-server's log ----------------
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'gradual-e2e-'));
const userData = path.join(scratch, 'user-data');
const extensions = path.join(scratch, 'extensions');
const workspace = path.join(scratch, 'workspace');
const serverLog = path.join(scratch, 'code-server.log');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
fs.mkdirSync(opts.artifacts, { recursive: true });
fs.writeFileSync(path.join(workspace, 'broken.rly'), PROGRAM);
fs.copyFileSync(opts.model, path.join(workspace, 'model.onnx'));
fs.writeFileSync(
  path.join(userData, 'User', 'settings.json'),
  JSON.stringify({
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'editor.hover.delay': 200,
    'editor.minimap.enabled': false,
  }),
);
const settings = opts.settings ? JSON.parse(opts.settings) : { 'gradual.server.command': [opts.gradual, 'lsp'] };
writeWorkspaceSettings(settings);

function writeWorkspaceSettings(settings) {
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function until(condition, timeout, what) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await condition()) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout / 1000} s waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// code-server ----------------------------------------------------------------------------------
const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
log('installing the .vsix into code-server');
execFileSync(CODE_SERVER, [...common, '--install-extension', path.resolve(opts.vsix), '--force'], {
  stdio: ['ignore', 'pipe', 'pipe'],
  timeout: WAIT,
});
const port = await freePort();
const config = path.join(scratch, 'config.yaml');
fs.writeFileSync(config, 'auth: none\ncert: false\n');
const server = spawn(
  CODE_SERVER,
  [
    ...common,
    '--config', config,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--disable-file-downloads',
    workspace,
  ],
  { stdio: ['ignore', fs.openSync(serverLog, 'w'), fs.openSync(serverLog, 'a')], detached: true },
);
const base = `http://127.0.0.1:${port}`;
log(`code-server on ${base} (pid ${server.pid}, log ${serverLog})`);

let browser;
let page;
let phase = 'starting code-server';
let failed = false;
try {
  await until(async () => {
    if (server.exitCode !== null) {
      throw new Error(`code-server exited with ${server.exitCode}; see ${serverLog}`);
    }
    return fetch(`${base}/healthz`).then((r) => r.ok, () => false);
  }, WAIT, 'code-server to answer /healthz');

  phase = 'loading the workbench in chromium';
  browser = await chromium.launch({
    executablePath: opts.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(SHORT);
  await page.goto(`${base}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: WAIT });
  log('workbench loaded');

  phase = 'opening broken.rly (the grammar colours it)';
  await openFromExplorer('broken.rly');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await token(editor, 'nn.rleu').first().waitFor();
  const colour = (text) => token(editor, text).first().evaluate((span) => getComputedStyle(span).color);
  expect((await colour('def')) !== (await colour('(')), 'the keyword `def` coloured apart from punctuation');
  expect((await colour('float32')) !== (await colour('(')), 'the dtype `float32` coloured apart from punctuation');

  phase = "the error underlined (the server's first diagnostics)";
  const squiggle = editor.locator('.squiggly-error').first();
  const complaint = page.locator('.notification-toast', { hasText: 'gradual:' }).first();
  await squiggle.or(complaint).waitFor({ timeout: WAIT });
  if (await complaint.isVisible()) {
    throw new Error(`the extension says: ${await complaint.locator('.notification-list-item-message').innerText()}`);
  }
  log('the error is underlined');

  phase = 'the error in the Problems panel';
  await showProblems();
  const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'unknown operator' });
  await problem.first().waitFor();
  const problemText = await problem.first().innerText();
  expect(problemText.includes('nn.rleu') && problemText.includes('gradual'), `a Problems entry naming nn.rleu and gradual, got: ${problemText}`);
  log('the Problems panel lists it');

  phase = "a hover with %x's type";
  await token(editor, '%x').first().hover();
  const hover = page.locator('.monaco-hover:visible', { hasText: 'Tensor[(2, 3), float32]' });
  await hover.first().waitFor();
  log('the hover shows the type');
  await page.mouse.move(700, 300); // onto empty editor space, so the hover goes
  await hover.first().waitFor({ state: 'hidden' });

  phase = 'the quick fix offered on Ctrl+.';
  await token(editor, 'nn.rleu').first().click();
  await page.keyboard.press('Control+.');
  const fix = page.locator('.action-widget .monaco-list-row.focused', { hasText: 'replace `nn.rleu` with `nn.relu`' });
  await fix.first().waitFor({ timeout: WAIT });
  await page.screenshot({ path: path.join(opts.artifacts, 'e2e-quick-fix.png') });

  phase = 'the error cleared by the quick fix';
  await page.keyboard.press('Enter');
  await token(editor, 'nn.relu').first().waitFor();
  await until(async () => (await editor.locator('.squiggly-error').count()) === 0, WAIT, 'the squiggle to go');
  await page.locator('.markers-panel .monaco-list-row', { hasText: 'unknown operator' }).first().waitFor({ state: 'detached' });
  log('the quick fix cleared the error');
  await page.screenshot({ path: path.join(opts.artifacts, 'e2e-fixed.png') });

  phase = "an inlay hint with %0's type, switched off by gradual.inlayHints.bindingTypes";
  const line3 = editor.locator('.view-line', { hasText: 'nn.relu' }).first();
  await until(async () => (await rendered(line3)).includes('%0: Tensor[(2, 3), float32] ='), WAIT, 'the hint');
  writeWorkspaceSettings({ ...settings, 'gradual.inlayHints.bindingTypes': false });
  await until(async () => (await rendered(line3)).includes('%0 = nn.relu'), WAIT, 'the hint to go');
  writeWorkspaceSettings(settings);
  log("the inlay hint follows the extension's setting");

  phase = 'gradual: Show elaborated program';
  await runCommand('gradual: Show elaborated program');
  const elaborated = page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'as Tensor[(2|1, 3), float32]' });
  await elaborated.first().waitFor({ timeout: WAIT });
  await page.locator('.tab', { hasText: 'broken.elaborated.rly' }).first().waitFor();
  log('the elaborated program is shown');
  await page.screenshot({ path: path.join(opts.artifacts, 'e2e-elaborated.png') });

  phase = "gradual: Check model file (the explorer's context menu on model.onnx)";
  await explorerItem('model.onnx').click({ button: 'right' });
  await menuItem('Check model file');
  const listing = page.locator('.editor-instance .monaco-editor', { hasText: 'node fc2 (Gemm)' }).first();
  await listing.waitFor({ timeout: WAIT });
  await listing.locator('.squiggly-error').first().waitFor();
  await showProblems();
  await page.locator('.markers-panel .monaco-list-row', { hasText: 'nn.dense' }).first().waitFor();
  log('the model listing is shown with its diagnostic');
  await page.screenshot({ path: path.join(opts.artifacts, 'e2e-model.png') });

  phase = 'the install hint for a server command that is not there';
  writeWorkspaceSettings({ 'gradual.server.command': [path.join(scratch, 'no-such-dir', 'gradual'), 'lsp'] });
  const toast = page.locator('.notification-toast', { hasText: 'pip install gradual' });
  await toast.first().waitFor({ timeout: WAIT });
  expect((await toast.first().innerText()).includes('was not found'), 'the notification says the command was not found');
  log('a missing server is reported with the install hint');

  await page.screenshot({ path: path.join(opts.artifacts, 'e2e.png') });
  log(`passed; screenshots in ${opts.artifacts}`);
} catch (error) {
  failed = true;
  const shot = path.join(opts.artifacts, 'e2e-failure.png');
  if (page !== undefined) {
    await page.screenshot({ path: shot }).catch(() => undefined);
  }
  console.error(`\ne2e: FAILED at: ${phase}`);
  console.error(`e2e: ${error instanceof Error ? error.message.split('\n')[0] : error}`);
  console.error(`e2e: screenshot: ${shot}`);
  console.error(`e2e: code-server log: ${serverLog}; the editor's logs: ${path.join(userData, 'logs')}`);
  const logs = path.join(userData, 'logs');
  const channel = () => logFiles(logs).some((file) => /gradual/.test(path.basename(file)));
  await until(channel, 10_000, "the extension's Output channel on disk").catch(() => undefined);
  for (const file of logFiles(logs)) {
    if (/gradual/.test(path.basename(file))) {
      const text = fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-30).join('\n');
      console.error(`e2e: ${file} (its end):\n${text}\n`);
    }
  }
} finally {
  await browser?.close().catch(() => undefined);
  try {
    process.kill(-server.pid, 'SIGTERM'); // code-server and the processes it started
  } catch {
    // already gone
  }
}
if (!failed) {
  fs.rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

// helpers ---------------------------------------------------------------------------------------
function expect(condition, what) {
  if (!condition) {
    throw new Error(`expected ${what}`);
  }
}

function explorerItem(name) {
  return page.locator(`.explorer-folders-view .monaco-list-row[aria-label^="${name}"]`).first();
}

async function openFromExplorer(name) {
  await explorerItem(name).waitFor({ timeout: WAIT });
  await explorerItem(name).click();
  await page.locator('.tab', { hasText: name }).first().waitFor();
}

/** The spans of the editor's rendered text that are this token. */
function token(editor, text) {
  return editor.locator('.view-lines span span', { hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\%]/g, '\\$&')}$`) });
}

/** A line of the editor as it is drawn, inlay hints included (spaces are drawn as U+00A0). */
async function rendered(line) {
  return (await line.textContent()).replace(/\u00a0/g, ' ');
}

/** Every file under a directory. */
function logFiles(dir) {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? logFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]);
}

/** Choose an item of the open context menu with the keyboard (a click that comes too soon
 * after the menu opens is taken for the release of the right button, and ignored). */
async function menuItem(label) {
  const item = page.locator('.context-view .action-item', { hasText: label }).first();
  await item.waitFor();
  const items = await page.locator('.context-view .action-item').count();
  for (let i = 0; i <= items; i++) {
    if (await page.locator('.context-view .action-item.focused', { hasText: label }).count()) {
      await page.keyboard.press('Enter');
      await page.locator('.context-view .monaco-menu').waitFor({ state: 'detached' });
      return;
    }
    await page.keyboard.press('ArrowDown');
  }
  throw new Error(`no way to ${label} in the context menu`);
}

/** Open the Problems panel (Ctrl+Shift+M) unless it is open. */
async function showProblems() {
  if (!(await page.locator('.markers-panel').isVisible())) {
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel').waitFor();
  }
}

/** Run a command from the palette (F1), by its title. */
async function runCommand(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await row.waitFor();
  await row.click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}
