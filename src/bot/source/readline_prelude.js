// Loaded by arbiter with `node --require` before a JavaScript or TypeScript bot: the CodinGame
// arena gives such bots a synchronous readline() that returns the next line of standard input
// (without its newline), plus print() and printErr(). Plain node has none of them.
'use strict';
(function () {
  const fs = require('fs');
  const { StringDecoder } = require('string_decoder');
  const decoder = new StringDecoder('utf8');
  const chunk = Buffer.alloc(1 << 16);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let pending = '';
  let ended = false;

  // Reads once from fd 0 into `pending`; sets `ended` at the end of input.
  function fill() {
    let n;
    try {
      n = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 1); // stdin is non-blocking: wait a millisecond, then retry
        return;
      }
      if (e.code === 'EOF') {
        n = 0;
      } else {
        throw e;
      }
    }
    if (n === 0) {
      pending += decoder.end();
      ended = true;
    } else {
      pending += decoder.write(chunk.subarray(0, n));
    }
  }

  function readline() {
    let end = pending.indexOf('\n');
    while (end < 0 && !ended) {
      fill();
      end = pending.indexOf('\n');
    }
    if (end < 0) {
      if (pending === '') {
        return undefined;
      }
      const last = pending;
      pending = '';
      return last;
    }
    let line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    if (line.endsWith('\r')) {
      line = line.slice(0, -1);
    }
    return line;
  }

  globalThis.readline = readline;
  if (typeof globalThis.print !== 'function') {
    globalThis.print = (...args) => console.log(...args);
  }
  if (typeof globalThis.printErr !== 'function') {
    globalThis.printErr = (...args) => console.error(...args);
  }
})();
