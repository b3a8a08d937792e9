// The TextMate grammar, tokenized by the engine VS Code uses (vscode-textmate + oniguruma):
// each construct of the language gets the scope a theme colours. `npm run test:grammar`.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');
const oniguruma = require('vscode-oniguruma');
const textmate = require('vscode-textmate');

const GRAMMAR = path.join(__dirname, '..', 'syntaxes', 'gradual.tmLanguage.json');
const ROOT = path.join(__dirname, '..', '..', '..');

let grammar;

test.before(async () => {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scope) =>
      scope === 'source.gradual' ? textmate.parseRawGrammar(fs.readFileSync(GRAMMAR, 'utf8'), GRAMMAR) : null,
  });
  grammar = await registry.loadGrammar('source.gradual');
});

/** Each line's tokens as [text, innermost scope] pairs. */
function tokenize(text) {
  let state = textmate.INITIAL;
  const out = [];
  for (const line of text.split('\n')) {
    const result = grammar.tokenizeLine(line, state);
    for (const token of result.tokens) {
      out.push([line.slice(token.startIndex, token.endIndex), token.scopes[token.scopes.length - 1]]);
    }
    state = result.ruleStack;
  }
  return out;
}

/** The innermost scope of the `nth` token whose text is `word` (after trimming blanks). */
function scopeOf(text, word, nth = 0) {
  const found = tokenize(text).filter(([t]) => t.trim() === word);
  assert.ok(found.length > nth, `no token ${JSON.stringify(word)} in ${JSON.stringify(tokenize(text))}`);
  return found[nth][1];
}

test('a definition: keyword, name, parameters, tensor type with static and unknown dims', () => {
  const line = 'def @main(%x: Tensor[(2, ?), float32]) -> Tensor[(2, 5), float32] {';
  assert.equal(scopeOf(line, 'def'), 'storage.type.function.gradual');
  assert.equal(scopeOf(line, '@main'), 'entity.name.function.gradual');
  assert.equal(scopeOf(line, '%x'), 'variable.other.local.gradual');
  assert.equal(scopeOf(line, 'Tensor'), 'support.type.tensor.gradual');
  assert.equal(scopeOf(line, '2'), 'constant.numeric.integer.gradual');
  assert.equal(scopeOf(line, '?'), 'constant.language.unknown-dim.gradual');
  assert.equal(scopeOf(line, 'float32'), 'support.type.primitive.dtype.gradual');
  assert.equal(scopeOf(line, '->'), 'keyword.operator.arrow.gradual');
});

test('dims: intervals, symbolic arithmetic, variadics, broadcasts; dtype variables', () => {
  const line = 'Tensor[(1..8, n + 1, *b, 5|1, ..16, h // 2), T]';
  assert.equal(scopeOf(line, '..'), 'keyword.operator.range.gradual');
  assert.equal(scopeOf(line, '8'), 'constant.numeric.integer.gradual');
  assert.equal(scopeOf(line, 'n'), 'variable.other.dim.gradual');
  assert.equal(scopeOf(line, '+'), 'keyword.operator.arithmetic.gradual');
  assert.equal(scopeOf(line, '*'), 'keyword.operator.variadic.gradual');
  assert.equal(scopeOf(line, 'b'), 'variable.other.dim.gradual');
  assert.equal(scopeOf(line, '|'), 'keyword.operator.broadcast.gradual');
  assert.equal(scopeOf(line, '//'), 'keyword.operator.arithmetic.floordiv.gradual');
  assert.equal(scopeOf(line, 'T'), 'entity.name.type.parameter.gradual');
  assert.equal(scopeOf('Tensor[*, ?]', '*'), 'keyword.operator.any-rank.gradual');
  assert.equal(scopeOf('Tensor[*, ?]', '?'), 'constant.language.unknown-dtype.gradual');
});

test('comments: line, documentation, block (Relay prints types in them)', () => {
  assert.equal(scopeOf('%0 // a note', '// a note'), 'comment.line.double-slash.gradual');
  assert.equal(scopeOf('/// y = x W^T', '/// y = x W^T'), 'comment.line.documentation.gradual');
  const block = 'add(%x, %y) /* ty=Tensor[(2, 5), float32]\n  still */ %z';
  assert.equal(scopeOf(block, 'still'), 'comment.block.gradual');
  assert.equal(scopeOf(block, '%z'), 'variable.other.local.gradual');
});

test('calls, attributes, keywords, literals', () => {
  const text = [
    'let %y: Tensor[(?, 784), float32] = concatenate((%x, %row), axis=0, layout="NCHW");',
    'if (less(%i, 10)) { @loop(%t.0, 1.5e-3f32) } else { fn (%v) { %v } }',
    'can_unify(%x, shape=(1, 1)); match type True False None %a as Tensor[*, float32]',
    '#[version = "0.0.5"]',
  ].join('\n');
  assert.equal(scopeOf(text, 'let'), 'storage.type.let.gradual');
  assert.equal(scopeOf(text, 'concatenate'), 'support.function.operator.gradual');
  assert.equal(scopeOf(text, 'axis'), 'variable.parameter.attribute.gradual');
  assert.equal(scopeOf(text, '"'), 'string.quoted.double.gradual');
  assert.equal(scopeOf(text, 'NCHW'), 'string.quoted.double.gradual');
  assert.equal(scopeOf(text, 'if'), 'keyword.control.gradual');
  assert.equal(scopeOf(text, 'else'), 'keyword.control.gradual');
  assert.equal(scopeOf(text, 'less'), 'support.function.operator.gradual');
  assert.equal(scopeOf(text, '@loop'), 'entity.name.function.global.gradual');
  assert.equal(scopeOf(text, '0', 1), 'constant.numeric.index.gradual');
  assert.equal(scopeOf(text, '1.5e-3f32'), 'constant.numeric.gradual');
  assert.equal(scopeOf(text, 'fn'), 'storage.type.function.gradual');
  assert.equal(scopeOf(text, 'can_unify'), 'support.function.builtin.gradual');
  assert.equal(scopeOf(text, 'match'), 'keyword.control.gradual');
  assert.equal(scopeOf(text, 'type'), 'storage.type.type.gradual');
  assert.equal(scopeOf(text, 'True'), 'constant.language.boolean.gradual');
  assert.equal(scopeOf(text, 'None'), 'constant.language.null.gradual');
  assert.equal(scopeOf(text, 'as'), 'keyword.operator.cast.gradual');
  assert.equal(scopeOf(text, 'version'), 'keyword.other.version.gradual');
});

test('stdlib declarations: dotted names, dtype parameters, attribute types', () => {
  const line = 'def nn.dense[T, U](%data: Tensor[(*b, k), T], units: int? = None, strides: [int] = [1, 1]) -> Tensor[(*b, u), T] = dense;';
  assert.equal(scopeOf(line, 'nn.dense'), 'entity.name.function.gradual');
  assert.equal(scopeOf(line, 'U'), 'entity.name.type.parameter.gradual');
  assert.equal(scopeOf(line, 'int'), 'support.type.primitive.gradual');
  assert.equal(scopeOf(line, 'int', 1), 'support.type.primitive.gradual');
  assert.equal(scopeOf(line, 'units'), 'source.gradual');
});

test('every example and stdlib file ends outside any comment, string or type', () => {
  const files = ['examples', 'stdlib'].flatMap((dir) =>
    fs.readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith('.rly')).map((f) => path.join(ROOT, dir, f)));
  assert.ok(files.length > 20);
  for (const file of files) {
    let state = textmate.INITIAL;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      state = grammar.tokenizeLine(line, state).ruleStack;
    }
    const probe = grammar.tokenizeLine('%probe', state).tokens[0].scopes;
    assert.deepEqual(probe, ['source.gradual', 'variable.other.local.gradual'], file);
  }
});
