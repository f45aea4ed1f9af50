// Replay viewer: draws any game from its neutral board view (square, hex or point cells with
// stacks of pieces) and steps through the game. The data is computed by arbiter in Rust.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('game-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var FILL = ['#f3efe2', '#2b2b2b', '#c0392b', '#2a6fdb', '#27ae60', '#8e44ad', '#e67e22', '#16a085'];
  var INK = ['#222', '#f3efe2', '#fff', '#fff', '#fff', '#fff', '#222', '#fff'];
  var HEX_H = Math.sqrt(3) / 2;

  // Positions: frame 0 is the start, frame k the position after step k - 1.
  var frames = [];
  var cur = D.cells.map(function () { return []; });
  var marks = D.cells.map(function (c) { return c[3]; });
  D.start.p.forEach(function (e) { cur[e[0]] = e[1]; });
  frames.push({ pieces: cur, marks: marks, notes: D.start.notes, changed: [] });
  D.steps.forEach(function (s) {
    var prev = frames[frames.length - 1];
    var p = prev.pieces.slice(), m = prev.marks.slice();
    s.ch.forEach(function (c) { p[c[0]] = c[1]; if (c.length > 2) m[c[0]] = c[2]; });
    frames.push({ pieces: p, marks: m, notes: s.notes || prev.notes, changed: s.ch.map(function (c) { return c[0]; }) });
  });

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
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
    // Seat 0's colour is nearly the board's: its marks are drawn whiter instead.
    var seat = +m[1] % FILL.length, t = /^finish/.test(mark) ? 0.25 : 0.45;
    return seat === 0 ? blend('#e8dcc0', '#ffffff', 0.75) : blend('#e8dcc0', FILL[seat], t);
  }

  var svg = document.getElementById('board');
  var xs = D.cells.map(function (c) { return centre(c); });
  var minX = Math.min.apply(null, xs.map(function (p) { return p[0]; })) - 0.6;
  var minY = Math.min.apply(null, xs.map(function (p) { return p[1]; })) - 0.6;
  var maxX = Math.max.apply(null, xs.map(function (p) { return p[0]; })) + 0.6;
  var maxY = Math.max.apply(null, xs.map(function (p) { return p[1]; })) + 0.6;
  svg.setAttribute('viewBox', [minX, minY, maxX - minX, maxY - minY].join(' '));

  // The board: cells (or lines between neighbouring points), drawn once.
  var ground = el('g', {}, svg);
  var cellBg = [];
  if (D.shape === 'point') {
    for (var i = 0; i < D.cells.length; i++) {
      for (var j = i + 1; j < D.cells.length; j++) {
        var a = D.cells[i], b = D.cells[j];
        if ((a[1] === b[1] && Math.abs(a[2] - b[2]) === 1) || (a[2] === b[2] && Math.abs(a[1] - b[1]) === 1)) {
          el('line', { x1: xs[i][0], y1: xs[i][1], x2: xs[j][0], y2: xs[j][1], stroke: '#7a6a50', 'stroke-width': 0.04 }, ground);
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
    // Each cell's name, small and faint in its upper left, so moves can be read off the board.
    var name = el('text', { x: p[0] - 0.44, y: p[1] - 0.3, 'font-size': 0.16, fill: '#000', opacity: 0.45 }, ground);
    name.textContent = c[0];
  });
  var layer = el('g', {}, svg);

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
      var rad = D.shape === 'hex' ? 0.36 : 0.34;
      stack.forEach(function (q, h) {
        var y = base - h * step;
        el('ellipse', { cx: p[0], cy: y, rx: rad, ry: rad * (n > 1 ? 0.8 : 1), fill: FILL[q[0] % FILL.length], stroke: '#111', 'stroke-width': 0.035 }, g);
      });
      if (n > 0) {
        var top = stack[n - 1];
        var label = top[1];
        var ty = base - (n - 1) * step;
        if (label) {
          var t = el('text', { x: p[0], y: ty + 0.1, 'text-anchor': 'middle', 'font-size': 0.3, fill: INK[top[0] % INK.length] }, g);
          t.textContent = label;
        }
        if (n > 1) {
          var cnt = el('text', { x: p[0] + rad, y: p[1] + rad + 0.05, 'text-anchor': 'middle', 'font-size': 0.22, fill: '#000', stroke: '#fff', 'stroke-width': 0.04, 'paint-order': 'stroke' }, g);
          cnt.textContent = n;
        }
      }
    });
  }

  function text(id, value) { document.getElementById(id).textContent = value; }
  function ms(us) { return (us / 1000).toFixed(us < 10000 ? 2 : 1) + ' ms'; }
  function bot(seat) { return 'seat ' + seat + ' (' + D.bots[seat] + ')'; }

  var at = 0;
  var slider = document.getElementById('slider');
  slider.max = D.steps.length;

  function show(k) {
    at = Math.max(0, Math.min(D.steps.length, k));
    slider.value = at;
    drawFrame(at);
    text('where', 'step ' + at + ' of ' + D.steps.length);
    text('notes', frames[at].notes.join('\n'));
    var s = at > 0 ? D.steps[at - 1] : null;
    var head = 'start position', answer = '', time = '', input = '';
    var bar = document.getElementById('timebar');
    bar.style.width = '0';
    if (s) {
      if (s.kind === 'opening') head = 'turn ' + s.turn + ': opening ply ' + s.move + ' (played by the referee for ' + bot(s.seat) + ')';
      else if (s.kind === 'move') head = 'turn ' + s.turn + ': ' + bot(s.seat) + ' played ' + s.move;
      else head = 'turn ' + s.turn + ': ' + bot(s.seat) + ' forfeited (' + s.reason + '): ' + s.detail;
      if (s.kind === 'move') {
        answer = 'answer: ' + s.answer + (s.comment ? '\ncomment: ' + s.comment : '');
        if (s.wall_us !== undefined) {
          time = 'wall ' + ms(s.wall_us) + ' of ' + ms(s.limit_us) + ', CPU ' + ms(s.cpu_us) + (s.late ? ', LATE' : '') + ', strikes ' + s.strikes + ' of ' + D.clocks.strikes;
          var used = D.clocks.clock === 'cpu' ? s.cpu_us : s.wall_us;
          bar.style.width = Math.min(100, 100 * used / s.limit_us) + '%';
          bar.className = s.late ? 'late' : (used > 0.8 * s.limit_us ? 'close' : '');
        }
      }
      if (s.input !== undefined) input = s.input;
    }
    text('head', head);
    text('answer', answer);
    text('time', time);
    text('input', input);
    document.getElementById('input-box').hidden = !input;
    document.getElementById('end').hidden = at !== D.steps.length;
  }

  var timer = null;
  function stop() { if (timer) { clearInterval(timer); timer = null; } text('play', '\u25b6'); }
  function play() {
    if (timer) return stop();
    if (at >= D.steps.length) show(0);
    text('play', '\u2016');
    timer = setInterval(function () {
      if (at >= D.steps.length) return stop();
      show(at + 1);
    }, +document.getElementById('speed').value);
  }
  document.getElementById('first').onclick = function () { stop(); show(0); };
  document.getElementById('prev').onclick = function () { stop(); show(at - 1); };
  document.getElementById('next').onclick = function () { stop(); show(at + 1); };
  document.getElementById('last').onclick = function () { stop(); show(D.steps.length); };
  document.getElementById('play').onclick = play;
  document.getElementById('speed').onchange = function () { if (timer) { stop(); play(); } };
  slider.oninput = function () { stop(); show(+slider.value); };
  document.addEventListener('keydown', function (e) {
    if (e.target && e.target.tagName === 'SELECT') return;
    var k = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: D.steps.length }[e.key];
    if (k !== undefined) { e.preventDefault(); stop(); show(k); }
    else if (e.key === ' ') { e.preventDefault(); play(); }
  });

  // #last or #step=N opens the game at that step.
  var h = location.hash.slice(1);
  var m = /^step=(\d+)$/.exec(h);
  show(h === 'last' ? D.steps.length : m ? +m[1] : 0);
})();
