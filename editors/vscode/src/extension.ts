// The gradual extension: starts `gradual lsp` for .rly programs (diagnostics, hovers, inlay
// hints, quick fixes, formatting come from the server) and adds two commands that show what
// the server computes as read-only documents: the elaborated program, and a model file's
// listing with its diagnostics.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  Diagnostic as LspDiagnostic,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';

const VIEW_SCHEME = 'gradual-view'; // the read-only documents the commands open
const INSTALL_HINT = 'Install gradual where VS Code can run it (`pip install gradual`), or point the ' +
  '`gradual.server.command` setting at it (for a virtual environment: ["/path/to/venv/bin/gradual", "lsp"]), ' +
  'or set `gradual.server.python` to a Python that has it.';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
const views = new Map<string, string>(); // view uri -> its text
const viewChanged = new vscode.EventEmitter<vscode.Uri>();
let modelDiagnostics: vscode.DiagnosticCollection;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('gradual');
  modelDiagnostics = vscode.languages.createDiagnosticCollection('gradual-models');
  context.subscriptions.push(
    output,
    modelDiagnostics,
    viewChanged,
    vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, {
      onDidChange: viewChanged.event,
      provideTextDocumentContent: (uri) => views.get(uri.toString()) ?? '',
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.uri.scheme === VIEW_SCHEME) {
        views.delete(doc.uri.toString());
        modelDiagnostics.delete(doc.uri);
      }
    }),
    vscode.commands.registerCommand('gradual.showElaborated', showElaborated),
    vscode.commands.registerCommand('gradual.checkModel', checkModel),
    vscode.commands.registerCommand('gradual.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('gradual.server') || event.affectsConfiguration('gradual.diagnostics')) {
        void restart();
      }
    }),
  );
  await restart();
}

export async function deactivate(): Promise<void> {
  await stop();
}

// the server ----------------------------------------------------------------------------------

interface Launch {
  command: string;
  args: string[];
  python: boolean; // started as `python -m gradual lsp`
}

/** The command that starts the server, from the settings (an error message when unusable). */
function launch(): Launch | string {
  const config = vscode.workspace.getConfiguration('gradual');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
  const expand = (s: string) => s.replace(/\$\{workspaceFolder\}/g, folder);
  const python = config.get<string>('server.python', '').trim();
  if (python) {
    return { command: expand(python), args: ['-m', 'gradual', 'lsp'], python: true };
  }
  const command = config.get<unknown>('server.command');
  if (!Array.isArray(command) || command.length === 0 || command.some((part) => typeof part !== 'string')) {
    return '`gradual.server.command` must be a list of strings: the program, then its arguments (default ["gradual", "lsp"]).';
  }
  return { command: expand(command[0]), args: command.slice(1).map(expand), python: false };
}

/** Where a program named without a directory is found on PATH (undefined: nowhere). */
function onPath(program: string): string | undefined {
  if (program.includes('/') || program.includes('\\')) {
    return isExecutable(program) ? program : undefined;
  }
  const exts = process.platform === 'win32' ? ['', '.exe', '.cmd', '.bat'] : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const ext of exts) {
      const candidate = path.join(dir, program + ext);
      if (dir && isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Why the server cannot start from this command (undefined: it looks startable). A missing
 * program, or a Python without gradual, is said plainly instead of as a broken connection. */
async function preflight(run: Launch): Promise<string | undefined> {
  if (onPath(run.command) === undefined) {
    return `\`${run.command}\` was not found${run.command.includes('/') ? '' : ' on PATH'}. ${INSTALL_HINT}`;
  }
  if (!run.python) {
    return undefined;
  }
  return new Promise((resolve) => {
    execFile(run.command, ['-c', 'import gradual.lsp'], { timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve(error ? `\`${run.command}\` cannot import gradual (${lastLine(stderr) || error.message}). ${INSTALL_HINT}` : undefined);
    });
  });
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}

/** The settings the server reads (initializationOptions and didChangeConfiguration). */
function serverSettings(): object {
  const config = vscode.workspace.getConfiguration('gradual');
  return {
    inlayHints: {
      bindingTypes: config.get<boolean>('inlayHints.bindingTypes', true),
      parameterTypes: config.get<boolean>('inlayHints.parameterTypes', true),
      runtimeChecks: config.get<boolean>('inlayHints.runtimeChecks', true),
    },
    diagnostics: config.get<string>('diagnostics', 'auto'),
    debounceMs: config.get<number>('debounceMs', 10),
  };
}

async function start(): Promise<void> {
  const run = launch();
  const problem = typeof run === 'string' ? run : await preflight(run);
  if (problem !== undefined || typeof run === 'string') {
    output.appendLine(`gradual: the language server was not started: ${problem}`);
    void showStartError(problem ?? '');
    return;
  }
  output.appendLine(`gradual: starting ${[run.command, ...run.args].join(' ')}`);
  const serverOptions: ServerOptions = { command: run.command, args: run.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'gradual' },
      { scheme: 'untitled', language: 'gradual' },
    ],
    initializationOptions: { gradual: serverSettings() },
    outputChannel: output,
    initializationFailedHandler: () => false,
    // a change sends the whole `gradual` section, which the server reads as it reads these
    synchronize: { configurationSection: 'gradual' },
  };
  client = new LanguageClient('gradual', 'gradual', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    output.appendLine(`gradual: the language server did not start: ${message}`);
    void showStartError(
      `\`${[run.command, ...run.args].join(' ')}\` did not start a language server: it exited or did not answer ` +
        `(its messages are in Output › gradual). ${INSTALL_HINT}`,
    );
    const failed = client;
    client = undefined;
    await failed.dispose().catch(() => undefined);
  }
}

async function showStartError(message: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(`gradual: ${message}`, 'Open Settings', 'Show Output');
  if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'gradual.server');
  } else if (choice === 'Show Output') {
    output.show();
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) {
    await running.stop().catch(() => undefined);
  }
}

let lifecycle: Promise<void> = Promise.resolve(); // starts and stops, one at a time

/** Stop the server (if one runs) and start it again, after any start or stop under way. */
function restart(): Promise<void> {
  lifecycle = lifecycle
    .then(async () => {
      await stop();
      await start();
    })
    .catch((error) => output.appendLine(`gradual: restarting the language server failed: ${error}`));
  return lifecycle;
}

/** The running client, or undefined after saying why there is none. */
function runningClient(): LanguageClient | undefined {
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage(`gradual: the language server is not running. ${INSTALL_HINT}`);
    return undefined;
  }
  return client;
}

async function serverCommand(running: LanguageClient, command: string, args: unknown[]): Promise<any> {
  return running.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

/** Show a read-only document with this text (and language), beside the active editor. */
async function showView(uri: vscode.Uri, text: string, language?: string): Promise<vscode.TextEditor> {
  views.set(uri.toString(), text);
  viewChanged.fire(uri);
  let doc = await vscode.workspace.openTextDocument(uri);
  if (language !== undefined && doc.languageId !== language) {
    doc = await vscode.languages.setTextDocumentLanguage(doc, language);
  }
  return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}

// commands --------------------------------------------------------------------------------------

/** gradual: Show elaborated program — the open program's checks made explicit as casts. */
async function showElaborated(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.languageId !== 'gradual' || editor.document.uri.scheme === VIEW_SCHEME) {
    void vscode.window.showWarningMessage('gradual: open a .rly program to see it elaborated.');
    return;
  }
  const running = runningClient();
  if (running === undefined) {
    return;
  }
  const source = editor.document.uri;
  const answer = await serverCommand(running, 'gradual.elaborated', [running.code2ProtocolConverter.asUri(source)]);
  if (typeof answer?.text !== 'string') {
    void vscode.window.showErrorMessage(`gradual: ${answer?.error ?? 'no elaborated program'}`);
    return;
  }
  const name = path.basename(source.path).replace(/\.rly$/, '');
  await showView(vscode.Uri.from({ scheme: VIEW_SCHEME, path: `/${name}.elaborated.rly` }), answer.text, 'gradual');
}

/** gradual: Check model file — an .onnx or .pt2 model's listing, with its diagnostics on it. */
async function checkModel(target?: vscode.Uri): Promise<void> {
  const model = target instanceof vscode.Uri ? target : await pickModel();
  if (model === undefined) {
    return;
  }
  const running = runningClient();
  if (running === undefined) {
    return;
  }
  const listing = vscode.Uri.from({ scheme: VIEW_SCHEME, path: `/${path.basename(model.path)}.listing` });
  const answer = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `gradual: checking ${path.basename(model.path)}` },
    () => serverCommand(running, 'gradual.modelListing', [
      running.code2ProtocolConverter.asUri(model),
      listing.toString(),
    ]),
  );
  if (typeof answer?.text !== 'string') {
    void vscode.window.showErrorMessage(`gradual: ${answer?.error ?? 'the model could not be checked'}`);
    return;
  }
  const diagnostics: LspDiagnostic[] = answer.diagnostics ?? [];
  modelDiagnostics.set(listing, await running.protocol2CodeConverter.asDiagnostics(diagnostics));
  await showView(listing, answer.text);
  if (diagnostics.length === 0) {
    void vscode.window.showInformationMessage(`gradual: ${path.basename(model.path)} checks clean.`);
  }
}

/** The model the active tab shows, or one the user picks. */
async function pickModel(): Promise<vscode.Uri | undefined> {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const shown = input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom ? input.uri : undefined;
  if (shown !== undefined && /\.(onnx|pt2)$/i.test(shown.path)) {
    return shown;
  }
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    filters: { Models: ['onnx', 'pt2'] },
    openLabel: 'Check model',
  });
  return picked?.[0];
}
