// Replay viewer: draws any game from its neutral board view (square, hex or point cells with
// stacks of pieces) and steps through the game, or an external referee's game as a table of
// turns; a CodinGame SDK game steps without a board, with what the game said after each step
// (its summary lines and tooltips), and is drawn beside by its own viewer where it can be
// (sdk_player.js). The data is computed by arbiter in Rust (zlib, base64) and handed to arbiterGame: by
// the game's data file (game-N.js, which replay.html#game=N loads: a page opened from the disk
// may load a script beside it, not fetch a file), or by a script in a page of one game. Every
// text from the data is shown as text, never as markup.
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var HEX_H = Math.sqrt(3) / 2;

  function byId(id) { return document.getElementById(id); }
  function text(id, value) { byId(id).textContent = value; }
  function add(parent, tag, value, cls) {
    var e = document.createElement(tag);
    if (value !== undefined) e.textContent = value;
    if (cls) e.className = cls;
    parent.appendChild(e);
    return e;
  }
  function bytesOf(b64) {
    var bin = atob(b64.replace(/\s+/g, ''));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  // Says why there is no replay to show; the page is done (tests and tools wait for the mark).
  function message(why) {
    var m = byId('message');
    m.textContent = why;
    m.hidden = false;
    document.body.setAttribute('data-ready', '1');
  }
  function unpack(b64, then) {
    if (typeof DecompressionStream === 'undefined') {
      return message('This browser cannot unpack the replay (it has no DecompressionStream): use a recent Chromium, Firefox or Safari.');
    }
    var stream = new Blob([bytesOf(b64)]).stream().pipeThrough(new DecompressionStream('deflate'));
    new Response(stream).text().then(function (json) { then(JSON.parse(json)); }, function (e) {
      message('The replay data is damaged: ' + e);
      throw e;
    });
  }
  // The address's parameters: #game=N, with &last or &step=K (#last, #step=K alone in a page
  // of one game).
  function params() {
    var out = {};
    location.hash.slice(1).split('&').forEach(function (p) {
      var kv = p.split('=');
      if (kv[0]) out[kv[0]] = kv.length > 1 ? decodeURIComponent(kv[1]) : '';
    });
    return out;
  }
  function ms(us) { return (us / 1000).toFixed(us < 10000 ? 2 : 1) + ' ms'; }
  function utf8Bytes(s) { return new TextEncoder().encode(s).length; }
  function swatch(D, seat, parent) {
    var sw = add(parent, 'span', undefined, 'swatch');
    sw.setAttribute('data-seat', seat);
    sw.style.background = D.colours[seat % D.colours.length][1];
  }
  // A bot's stderr as kept by the record, folded open for the bot that forfeited.
  function stderrOf(D, seat, tail, bytes, offender, parent) {
    var d = add(parent, 'details');
    d.open = offender === seat;
    var s = add(d, 'summary');
    swatch(D, seat, s);
    var more = !D.external && bytes > utf8Bytes(tail) ? ', last ' + utf8Bytes(tail) + ' shown' : '';
    s.appendChild(document.createTextNode('stderr of ' + (D.bots[seat] === undefined ? '?' : D.bots[seat]) + ' (' + bytes + ' bytes in all' + more + ')'));
    add(d, 'pre', tail, 'stderr');
  }

  // The title and the line under it: the bots by seat, the game, the verdict.
  function header(D) {
    document.title = D.title;
    text('title', D.title);
    var legend = byId('legend');
    D.bots.forEach(function (bot, seat) {
      swatch(D, seat, legend);
      // A game whose rules are another program's names its players by number (CodinGame's
      // players 0, 1, ...), not by the colours of arbiter's pieces.
      legend.appendChild(document.createTextNode(D.external || D.sdk ? 'player ' + seat + ': ' : 'seat ' + seat + ' (' + D.colours[seat % D.colours.length][0] + '): '));
      add(legend, 'b', bot);
      legend.appendChild(document.createTextNode(' \u00a0 '));
    });
    add(legend, 'br');
    add(legend, 'span', D.external
      ? 'external referee `' + D.referee + '`, ' + D.seats + ' players, seed ' + D.seed + ', ' + D.answers.length + ' answers. ' + D.verdict + '.'
      : D.game + ' (' + D.variant + ', ' + D.seats + ' seats), seed ' + D.seed + ', ' + D.moves + ' moves' +
        (D.opening ? ' after ' + D.opening + ' opening plies' : '') + '. ' + D.end.verdict + '.' +
        (D.sdk ? ' CodinGame SDK referee `' + D.referee + '`.' : ''), 'muted');
  }

  // An external referee's game: each answer with its input and time, then the stderr.
  function external(D) {
    var box = byId('external');
    box.hidden = false;
    if (D.detail) add(box, 'p', D.detail).id = 'detail';
    var table = add(box, 'table');
    var head = add(add(table, 'thead'), 'tr');
    ['turn', 'player', 'input sent', 'answer', 'time'].forEach(function (h) { add(head, 'th', h); });
    var body = add(table, 'tbody');
    var late = {};
    D.late.forEach(function (i) { late[i] = true; });
    function exact(us) { return us < 1000 ? us + ' \u00b5s' : ms(us); }
    D.answers.forEach(function (answer, i) {
      var tr = add(body, 'tr');
      add(tr, 'td', String(i + 1));
      var who = add(tr, 'td');
      var seat = D.seat[i];
      if (seat !== undefined) {
        swatch(D, seat, who);
        who.appendChild(document.createTextNode(' ' + (D.bots[seat] === undefined ? '?' : D.bots[seat])));
      }
      var input = add(tr, 'td');
      input.style.textAlign = 'left';
      add(input, 'pre', D.inputs[i] === undefined ? '' : D.inputs[i]);
      var ans = add(tr, 'td');
      ans.style.textAlign = 'left';
      add(ans, 'pre', answer);
      add(tr, 'td', (D.wall_us[i] === undefined ? '' : exact(D.wall_us[i])) + (late[i] ? ' (late)' : ''));
    });
    add(box, 'p', 'ranks [' + D.ranks.join(', ') + ']', 'muted');
    var ref = add(box, 'details');
    ref.open = D.referee_error;
    add(ref, 'summary', 'stderr of the referee');
    add(ref, 'pre', D.referee_stderr, 'stderr');
    D.stderr.forEach(function (tail, seat) {
      stderrOf(D, seat, tail, D.stderr_bytes[seat] || 0, D.offender, box);
    });
    document.body.setAttribute('data-ready', '1');
  }

  // The verdict, shown at the last step: its detail, the placings and each bot's stderr.
  function ending(D) {
    var end = byId('end');
    var verdict = end.querySelector('b');
    verdict.textContent = 'Verdict: ' + D.end.verdict;
    if (D.end.detail) {
      var p = document.createElement('p');
      p.id = 'detail';
      p.textContent = D.end.detail;
      verdict.parentNode.insertBefore(p, verdict.nextSibling);
    }
    text('placings', 'Placings: ' + D.end.placings + '. Scores: ' + D.end.scores_text + '.');
    if (D.sdk) {
      var ref = add(end, 'details');
      ref.open = D.end.reason === 'referee-error';
      add(ref, 'summary', 'stderr of the referee');
      add(ref, 'pre', D.end.referee_stderr, 'stderr');
    }
    D.end.stderr.forEach(function (tail, seat) {
      stderrOf(D, seat, tail, D.end.stderr_bytes[seat] || 0, D.end.offender, end);
    });
    byId('moves-box').querySelector('summary').textContent = 'Moves (' + (D.moves + D.opening) + ')';
  }

  function start(D) {
    byId('viewer').hidden = false;
    ending(D);
    // Steps come as columns: one object per step again.
    if (D.steps.cols) {
      var cols = D.steps.cols, steps = [];
      for (var i = 0; i < D.steps.n; i++) {
        var s = {};
        for (var k in cols) if (cols[k][i] !== null) s[k] = cols[k][i];
        steps.push(s);
      }
      D.steps = steps;
    }
    var FILL = D.colours.map(function (c) { return c[1]; });
    var INK = D.colours.map(function (c) { return c[2]; });
    var NAME = D.colours.map(function (c) { return c[0]; });

    // Positions: frame 0 is the start, frame k the position after step k - 1.
    var frames = [];
    var cur = D.cells.map(function () { return []; });
    var marks = D.cells.map(function (c) { return c[3]; });
    D.start.p.forEach(function (e) { cur[e[0]] = e[1]; });
    frames.push({ pieces: cur, marks: marks, notes: D.start.notes, changed: [] });
    var turn = D.steps.length && D.steps[0].turn !== undefined ? D.steps[0].turn - 1 : 0;
    D.steps.forEach(function (s) {
      var prev = frames[frames.length - 1];
      var p = prev.pieces.slice(), m = prev.marks.slice();
      // A game without a board (an SDK game's) changes no cells.
      if (!s.ch) s.ch = [];
      s.ch.forEach(function (c) { p[c[0]] = c[1]; if (c.length > 2) m[c[0]] = c[2]; });
      frames.push({ pieces: p, marks: m, notes: s.notes || prev.notes, changed: s.ch.map(function (c) { return c[0]; }) });
      // Omitted fields: the turn follows the previous one, the answer is the move and its
      // comment (shown as the move, then the comment on a line of its own), no strikes yet.
      if (s.turn === undefined) s.turn = turn + 1;
      turn = s.turn;
      if (s.kind === 'move' && s.answer === undefined) s.plain = true;
      if (s.plain) s.answer = s.move;
      if (s.seat === undefined) s.seat = 0;
      if (s.strikes === undefined) s.strikes = 0;
      // A seat's first turn has a limit of its own (its input may not be kept: `first` is). An
      // SDK game's limits are the game's own, turn by turn: not known here.
      if (s.kind !== 'opening' && !D.sdk) s.limit_us = s.first ? D.clocks.first_turn_us : D.clocks.turn_us;
    });

    function el(name, attrs, parent) {
      var e = document.createElementNS(NS, name);
      for (var k in attrs) e.setAttribute(k, attrs[k]);
      if (parent) parent.appendChild(e);
      return e;
    }
    function fill(seat) { return FILL[seat % FILL.length]; }
    function ink(seat) { return INK[seat % INK.length]; }
    function centre(c) {
      if (D.shape === 'hex') return [c[1] + 0.5, c[2] * HEX_H + 0.58];
      return [c[1] + 0.5, c[2] + 0.5];
    }
    // A cell's background: light, dark, or for a seat's mark (`start-1`, `castle-0`) a blend of
    // the board's light colour with that seat's colour, so pieces on it stay easy to see.
    function blend(a, b, t) {
      var out = '#';
      for (var i = 1; i < 7; i += 2) {
        var v = Math.round(parseInt(a.substr(i, 2), 16) * (1 - t) + parseInt(b.substr(i, 2), 16) * t);
        out += (v < 16 ? '0' : '') + v.toString(16);
      }
      return out;
    }
    function markFill(mark) {
      if (!mark) return D.shape === 'point' ? 'none' : '#e8dcc0';
      if (mark === 'dark') return '#9a7b55';
      var m = /-(\d+)$/.exec(mark);
      if (!m) return '#cdbf9f';
      // A light seat colour is nearly the board's: its marks are drawn whiter instead.
      var f = fill(+m[1]), t = /^finish/.test(mark) ? 0.25 : 0.45;
      return f.toLowerCase() === '#f3efe2' ? blend('#e8dcc0', '#ffffff', 0.75) : blend('#e8dcc0', f, t);
    }

    var svg = document.getElementById('board');
    // A game without a board (an external referee's) shows its frames' text only.
    if (!D.cells.length) svg.style.display = 'none';
    var xs = D.cells.map(function (c) { return centre(c); });
    var minX = Math.min.apply(null, xs.map(function (p) { return p[0]; })) - 0.6;
    var minY = Math.min.apply(null, xs.map(function (p) { return p[1]; })) - 0.6;
    var maxX = Math.max.apply(null, xs.map(function (p) { return p[0]; })) + 0.6;
    var maxY = Math.max.apply(null, xs.map(function (p) { return p[1]; })) + 0.6;
    if (D.cells.length) svg.setAttribute('viewBox', [minX, minY, maxX - minX, maxY - minY].join(' '));

    // The board: cells (or lines between neighbouring points, diagonal ones too where they
    // count), drawn once.
    var ground = el('g', {}, svg);
    var cellBg = [];
    if (D.shape === 'point') {
      for (var i = 0; i < D.cells.length; i++) {
        for (var j = i + 1; j < D.cells.length; j++) {
          var a = D.cells[i], b = D.cells[j];
          var dx = Math.abs(a[1] - b[1]), dy = Math.abs(a[2] - b[2]);
          if ((dx + dy === 1) || (D.diagonals && dx === 1 && dy === 1)) {
            el('line', { x1: xs[i][0], y1: xs[i][1], x2: xs[j][0], y2: xs[j][1], stroke: '#7a6a50', 'stroke-width': dx + dy === 1 ? 0.04 : 0.025, 'class': dx + dy === 1 ? 'edge' : 'diagonal' }, ground);
          }
        }
      }
    }
    D.cells.forEach(function (c, i) {
      var p = xs[i], shape;
      if (D.shape === 'hex') {
        var r = 0.577, pts = [];
        for (var k = 0; k < 6; k++) {
          var ang = Math.PI / 3 * k + Math.PI / 6;
          pts.push((p[0] + r * Math.cos(ang)).toFixed(3) + ',' + (p[1] + r * Math.sin(ang)).toFixed(3));
        }
        shape = el('polygon', { points: pts.join(' '), stroke: '#7a6a50', 'stroke-width': 0.03 }, ground);
      } else if (D.shape === 'point') {
        shape = el('circle', { cx: p[0], cy: p[1], r: 0.08, stroke: '#7a6a50', 'stroke-width': 0.03 }, ground);
      } else {
        shape = el('rect', { x: c[1], y: c[2], width: 1, height: 1 }, ground);
      }
      var t = el('title', {}, shape);
      t.textContent = c[0];
      cellBg.push(shape);
    });
    var layer = el('g', {}, svg);
    // Cell names above the pieces, small, with a light halo, at the cell's top edge (hexes) or
    // upper left corner (squares, points), so they stay readable on an occupied cell.
    var names = el('g', { 'pointer-events': 'none' }, svg);
    D.cells.forEach(function (c, i) {
      var p = xs[i];
      var at = D.shape === 'hex' ? { x: p[0], y: p[1] - 0.36, 'text-anchor': 'middle' } : { x: p[0] - 0.46, y: p[1] - 0.33 };
      at['font-size'] = 0.16; at.fill = '#000'; at['fill-opacity'] = 0.7;
      at.stroke = '#fff'; at['stroke-width'] = 0.04; at['stroke-opacity'] = 0.8; at['paint-order'] = 'stroke';
      at['class'] = 'cell-name';
      el('text', at, names).textContent = c[0];
    });

    function drawFrame(k) {
      var f = frames[k];
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      var changed = {};
      f.changed.forEach(function (i) { changed[i] = true; });
      D.cells.forEach(function (c, i) {
        var bg = cellBg[i];
        bg.setAttribute('fill', D.shape === 'point' ? (changed[i] ? '#f1c40f' : '#7a6a50') : markFill(f.marks[i]));
        var p = xs[i];
        var g = el('g', { 'data-cell': c[0] }, layer);
        var stack = f.pieces[i] || [];
        g.setAttribute('data-pieces', stack.map(function (q) { return q[0] + q[1]; }).join(','));
        if (changed[i]) {
          if (D.shape === 'square') el('rect', { x: c[1] + 0.04, y: c[2] + 0.04, width: 0.92, height: 0.92, fill: 'none', stroke: '#f1c40f', 'stroke-width': 0.08 }, g);
          else el('circle', { cx: p[0], cy: p[1], r: 0.47, fill: 'none', stroke: '#f1c40f', 'stroke-width': 0.07 }, g);
        }
        var n = stack.length;
        var step = n > 1 ? Math.min(0.1, 0.5 / (n - 1)) : 0;
        var base = p[1] + step * (n - 1) / 2;
        var rad = D.shape === 'hex' ? 0.34 : 0.32;
        stack.forEach(function (q, h) {
          var y = base - h * step;
          el('ellipse', { cx: p[0], cy: y, rx: rad, ry: rad * (n > 1 ? 0.8 : 1), fill: fill(q[0]), stroke: '#111', 'stroke-width': 0.035 }, g);
        });
        if (n > 0) {
          var top = stack[n - 1];
          var ty = base - (n - 1) * step;
          if (top[1]) {
            var t = el('text', { x: p[0], y: ty + 0.1, 'text-anchor': 'middle', 'font-size': 0.3, fill: ink(top[0]) }, g);
            t.textContent = top[1];
          }
        }
        if (n > 1) {
          // The whole stack, top first, as small discs down the cell's right side (with each
          // piece's label), or its height when it is too tall for that.
          var labelled = stack.some(function (q) { return q[1]; });
          if (n <= 4 && labelled) {
            var r2 = 0.1, x2 = p[0] + rad + 0.02, y0 = p[1] - (n - 1) * r2;
            for (var h = n - 1; h >= 0; h--) {
              var q = stack[h], y2 = y0 + (n - 1 - h) * 2 * r2;
              el('circle', { cx: x2, cy: y2, r: r2, fill: fill(q[0]), stroke: '#111', 'stroke-width': 0.02 }, g);
              if (q[1]) el('text', { x: x2, y: y2 + 0.045, 'text-anchor': 'middle', 'font-size': 0.13, fill: ink(q[0]) }, g).textContent = q[1];
            }
          } else {
            var cnt = el('text', { x: p[0] + rad, y: p[1] + rad + 0.05, 'text-anchor': 'middle', 'font-size': 0.22, fill: '#000', stroke: '#fff', 'stroke-width': 0.04, 'paint-order': 'stroke' }, g);
            cnt.textContent = n;
          }
        }
      });
    }

    function bot(seat) { return D.bots[seat] + (D.sdk ? ' (player ' + seat + ')' : ' (seat ' + seat + ', ' + NAME[seat % NAME.length] + ')'); }

    // The move list: one line per step, a click shows that step; the verdict closes it.
    var list = byId('moves');
    var items = [];
    D.steps.forEach(function (s, k) {
      var li = document.createElement('li');
      var sw = document.createElement('span');
      sw.className = 'swatch';
      sw.setAttribute('data-seat', s.seat);
      sw.style.background = fill(s.seat);
      li.appendChild(sw);
      var what = s.kind === 'forfeit' ? 'forfeit (' + s.reason + ')' : s.move + (s.kind === 'opening' ? ' (opening)' : '');
      // An SDK game's players answer a game turn together: each line says its game turn.
      li.appendChild(document.createTextNode((D.sdk ? s.turn + '. ' : '') + D.bots[s.seat] + ': ' + what));
      if (s.kind === 'forfeit') li.className = 'forfeit';
      li.setAttribute('data-step', k + 1);
      li.onclick = function () { stop(); show(k + 1); };
      list.appendChild(li);
      items.push(li);
    });
    var last = document.createElement('li');
    last.className = 'verdict';
    last.textContent = byId('end').querySelector('b').textContent;
    last.onclick = function () { stop(); show(D.steps.length); };
    list.appendChild(last);

    // Every answer of an SDK game's turn `s.turn`, together ("ann 12, bob 7"), the step's own
    // first: its players answered them at once.
    function together(s) {
      var all = [bot(s.seat) + ' played ' + s.move];
      D.steps.forEach(function (o) {
        if (o !== s && o.kind === 'move' && o.turn === s.turn) all.push(bot(o.seat) + ' played ' + o.move);
      });
      return all.join('; ');
    }

    var at = 0;
    var slider = byId('slider');
    slider.max = D.steps.length;

    // An SDK game drawn by its own viewer (sdk_player.js) follows the steps shown, and leads
    // them while it plays; `quiet` while it does.
    var sdk = null, quiet = false;

    function show(k) {
      at = Math.max(0, Math.min(D.steps.length, k));
      slider.value = at;
      drawFrame(at);
      text('where', 'step ' + at + ' of ' + D.steps.length);
      text('notes', frames[at].notes.join('\n'));
      byId('notes').hidden = !frames[at].notes.length;
      var s = at > 0 ? D.steps[at - 1] : null;
      var head = 'start position', answer = '', answerLabel = 'answer:', time = '', input = '', err = '';
      var bar = byId('timebar');
      bar.style.width = '0';
      bar.className = '';
      if (s) {
        if (s.kind === 'opening') head = 'turn ' + s.turn + ': opening ply ' + s.move + ' (played by the referee for ' + bot(s.seat) + ')';
        else if (s.kind === 'move' && D.sdk) head = 'game turn ' + s.turn + ': ' + together(s);
        else if (s.kind === 'move') head = 'turn ' + s.turn + ': ' + bot(s.seat) + ' played ' + s.move;
        else if (s.kind === 'forfeit') head = 'turn ' + s.turn + ': ' + bot(s.seat) + ' forfeited: ' + s.reason;
        else head = 'turn ' + s.turn + ': ' + bot(s.seat) + (s.move ? ': ' + s.move : '');
        if (s.kind !== 'forfeit' && s.answer !== undefined) {
          // A kept answer is the line as the bot wrote it, its comment in it: shown once.
          answer = s.plain ? s.answer + (s.comment ? '\ncomment: ' + s.comment : '') : s.answer;
          if (s.wall_us !== undefined) {
            time = 'wall ' + ms(s.wall_us) + (s.limit_us ? ' of ' + ms(s.limit_us) : '') + ', CPU ' + ms(s.cpu_us) + (s.late ? ', LATE' : '') + ', strikes ' + s.strikes + ' of ' + D.clocks.strikes;
            var used = D.clocks.clock === 'cpu' ? s.cpu_us : s.wall_us;
            if (s.limit_us) {
              bar.style.width = Math.min(100, 100 * used / s.limit_us) + '%';
              bar.className = s.late ? 'late' : (used > 0.8 * s.limit_us ? 'close' : '');
            }
          }
        } else if (s.kind === 'forfeit') {
          // What happened instead of an answer: the verdict's detail names the partial answer,
          // the exit or the time waited.
          answerLabel = 'what happened:';
          answer = s.reason + ': ' + s.detail;
          if (!D.sdk) time = 'limit ' + ms(s.first ? D.clocks.first_turn_us : D.clocks.turn_us) + ' + ' + ms(D.clocks.grace_us) + ' grace (' + D.clocks.clock + ' clock), strikes ' + s.strikes + ' of ' + D.clocks.strikes;
          bar.style.width = '100%';
          bar.className = 'late';
        }
        if (s.input !== undefined) input = s.input;
        else if (s.kind === 'move' && D.inputs === 'telling') input = '(not kept in the report: each seat\'s first turn, late turns and forfeits keep their input)';
        if (s.err) err = s.err;
      }
      text('head', head);
      text('answer-label', answerLabel);
      text('answer', answer);
      text('time', time);
      text('input', input);
      text('err-label', s && s.kind === 'forfeit' ? 'stderr (its last part):' : 'stderr this turn:');
      text('err', err);
      byId('answer-box').hidden = !answer;
      byId('err-box').hidden = !err;
      byId('input-box').hidden = !input;
      said(s || D.start);
      byId('end').hidden = at !== D.steps.length;
      items.forEach(function (li) { li.classList.remove('at'); });
      var cur = at === D.steps.length ? last : at > 0 ? items[at - 1] : null;
      if (cur) {
        cur.classList.add('at');
        // Scroll the list, not the page.
        var top = cur.offsetTop - list.offsetTop;
        if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - cur.offsetHeight) list.scrollTop = top - list.clientHeight / 2;
      }
      if (sdk && !quiet) sdk.step(at);
    }

    // What an SDK game said after the step shown (at the start: after its first frame): its
    // summary lines, and its tooltips, each with the player it is about.
    function said(s) {
      var summary = s.summary || [], tips = s.tooltips || [];
      text('summary', summary.join('\n'));
      byId('summary-box').hidden = !summary.length;
      var list = byId('tooltips');
      while (list.firstChild) list.removeChild(list.firstChild);
      tips.forEach(function (t) {
        var li = add(list, 'li');
        swatch(D, t[0], li);
        li.appendChild(document.createTextNode(' ' + (D.bots[t[0]] === undefined ? '?' : D.bots[t[0]]) + ': ' + t[1]));
      });
      byId('tooltips-box').hidden = !tips.length;
    }

    var timer = null;
    function stop() { if (timer) { clearInterval(timer); timer = null; } text('play', '\u25b6'); }
    function play() {
      if (sdk && sdk.active) return sdk.toggle();
      if (timer) return stop();
      if (at >= D.steps.length) show(0);
      text('play', '\u2016');
      timer = setInterval(function () {
        if (at >= D.steps.length) return stop();
        show(at + 1);
      }, +byId('speed').value);
    }
    byId('first').onclick = function () { stop(); show(0); };
    byId('prev').onclick = function () { stop(); show(at - 1); };
    byId('next').onclick = function () { stop(); show(at + 1); };
    byId('last').onclick = function () { stop(); show(D.steps.length); };
    byId('play').onclick = play;
    byId('speed').onchange = function () { if (timer) { stop(); play(); } };
    slider.oninput = function () { stop(); show(+slider.value); };
    document.addEventListener('keydown', function (e) {
      if (e.target && e.target.tagName === 'SELECT') return;
      var k = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: D.steps.length }[e.key];
      if (k !== undefined) { e.preventDefault(); stop(); show(k); }
      else if (e.key === ' ') { e.preventDefault(); play(); }
    });

    // &last (#last) or &step=N (#step=N) opens the game at that step.
    var P = params();
    show('last' in P ? D.steps.length : /^\d+$/.test(P.step || '') ? +P.step : 0);
    if (D.sdk && window.arbiterSdk) {
      sdk = window.arbiterSdk.mount(D, {
        show: function (k) { quiet = true; show(k); quiet = false; },
        at: function () { return at; },
        // The game's own player plays its frames: the steps' autoplay steps aside.
        graphic: function () { stop(); byId('play').hidden = true; byId('speed').hidden = true; },
        // The seats in the game's own colours (its viewer draws them so).
        recolour: function (fills, names) {
          fills.forEach(function (f, s) { if (D.colours[s]) D.colours[s] = [names[s], f, D.colours[s][2]]; });
          FILL = D.colours.map(function (c) { return c[1]; });
          NAME = D.colours.map(function (c) { return c[0]; });
          Array.prototype.forEach.call(document.querySelectorAll('[data-seat]'), function (e) { e.style.background = fill(+e.getAttribute('data-seat')); });
          var legend = byId('legend');
          while (legend.firstChild) legend.removeChild(legend.firstChild);
          header(D);
          quiet = true;
          show(at);
          quiet = false;
        }
      });
    }
    // The data is unpacked after the page loaded: tests and tools wait for this mark.
    document.body.setAttribute('data-ready', '1');
  }

  window.arbiterGame = function (id, b64) {
    unpack(b64, function (D) {
      header(D);
      if (D.external) external(D);
      else start(D);
    });
  };
  // A folder's page: the game its address names, from its data file beside the page.
  if (!document.body.hasAttribute('data-inline')) {
    var game = params().game;
    if (!/^\d+$/.test(game || '')) {
      message('No game is named: open a game from the report, or end this page\'s address with #game=N (N: a game_id of games.csv).');
    } else {
      var script = document.createElement('script');
      script.src = 'game-' + game + '.js';
      script.onerror = function () {
        message('The replay data of game ' + game + ' (game-' + game + '.js beside this page) cannot be loaded: it is not written yet, or was removed (`arbiter report DIR` writes it again).');
      };
      document.body.appendChild(script);
      window.addEventListener('hashchange', function () {
        if (params().game !== game) location.reload();
      });
    }
  }
})();
