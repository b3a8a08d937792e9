// A stand-in for @vscode/spdlog, a native module the test's code-server goes without
// (compiling it takes minutes on two cores): the same API in plain JavaScript, each message
// appended to its file at once (no rotation), so that the editor's logs, the Output channels
// among them (the extension's, with the server's stderr), are there to read when a test fails.
'use strict';
const fs = require('fs');
const path = require('path');

const LEVELS = ['trace', 'debug', 'info', 'warning', 'error', 'critical'];
let defaultLevel = 2; // info

class Logger {
  constructor(_type, _name, filename) {
    this.filename = filename;
    this.level = defaultLevel;
    this.raw = false; // clearFormatters: the message as it is, no time, level or line break
    fs.mkdirSync(path.dirname(filename), { recursive: true });
  }

  write(level, message) {
    if (this.filename === undefined || level < this.level) {
      return;
    }
    const stamp = new Date().toISOString().replace('T', ' ').replace('Z', '');
    fs.appendFileSync(this.filename, this.raw ? message : `${stamp} [${LEVELS[level]}] ${message}\n`);
  }

  trace(message) { this.write(0, message); }
  debug(message) { this.write(1, message); }
  info(message) { this.write(2, message); }
  warn(message) { this.write(3, message); }
  error(message) { this.write(4, message); }
  critical(message) { this.write(5, message); }
  getLevel() { return this.level; }
  setLevel(level) { this.level = level; }
  setPattern() { this.raw = false; }
  clearFormatters() { this.raw = true; }
  flush() {}
  drop() { this.filename = undefined; }
}

async function createLogger(name, filepath, maxFileSize, maxFiles) {
  return new Logger('rotating', name, filepath, maxFileSize, maxFiles);
}

exports.version = 11100; // what the native module reports for spdlog 1.11
exports.setLevel = (level) => { defaultLevel = level; };
exports.setFlushOn = () => {};
exports.Logger = Logger;
exports.createRotatingLogger = createLogger;
exports.createAsyncRotatingLogger = createLogger;
