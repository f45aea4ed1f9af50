// A CodinGame SDK game drawn by its own viewer: the engine's Drawer with the game's modules and
// sprites (the folder's sdk-view.js, which the run that played the game gathered from its class
// path) draws the recorded key frames in a canvas, with CodinGame's controls (play and pause,
// frame by frame, speed, the frame slider with the game's tooltips), in step with arbiter's text
// steps beside it: a frame shows the step after which the game drew it, and a step the last
// frame drawn by then. A page opened as a file loads no module file and fetches nothing, so the
// modules are loaded from blob URLs named in an import map, and every asset is a data: URL.
// Where the game cannot be drawn (no view, no WebGL, no sdk-view.js) the page says why and the
// text steps stay.
(function () {
  'use strict';
  var bundle = null, waiting = [];

  // Called by sdk-view.js (the folder's, or the copy inside a page of one game).
  window.arbiterSdkView = function (b) {
    bundle = b;
    var w = waiting;
    waiting = [];
    w.forEach(function (f) { f(b); });
  };

  function whenBundle(then, missing) {
    if (bundle) return then(bundle);
    // A page of one game holds its viewer before its data, or none.
    if (document.body.hasAttribute('data-inline')) {
      return missing('this page holds no viewer of the game (`arbiter replay FILE` puts in it the viewer that `arbiter play --replay FILE` writes beside FILE, FILE.sdk-view.js; a results folder keeps its own in replays/sdk-view.js).');
    }
    waiting.push(then);
    var s = document.createElement('script');
    s.src = 'sdk-view.js';
    s.onerror = function () {
      waiting = [];
      missing('this folder has no viewer of the game (replays/sdk-view.js, which the run that plays the game writes: runs of arbiter before it could draw SDK games have none).');
    };
    document.body.appendChild(s);
  }

  function webgl() {
    try {
      var c = document.createElement('canvas');
      return !!(window.WebGLRenderingContext && (c.getContext('webgl') || c.getContext('experimental-webgl')));
    } catch (e) {
      return false;
    }
  }

  // What the engine's Drawer asks of jQuery: events on its canvas.
  function jq(el) {
    var o = {
      off: function () { return o; },
      bind: function (ev, f) { el.addEventListener(ev, f); return o; },
      on: function (ev, f) { el.addEventListener(ev, f); return o; },
      mousemove: function (f) { el.addEventListener('mousemove', f); return o; }
    };
    return o;
  }

  // The viewer's modules, each from a blob URL that the import map names by its path in the
  // view folder; PIXI as a classic script first (the Drawer uses the global PIXI).
  function loadDrawer(b) {
    if (!window.PIXI) {
      var lib = document.createElement('script');
      lib.textContent = b.pixi;
      document.head.appendChild(lib);
    }
    var imports = {};
    Object.keys(b.modules).forEach(function (p) {
      imports[b.scheme + p] = URL.createObjectURL(new Blob([b.modules[p]], { type: 'text/javascript' }));
    });
    var map = document.createElement('script');
    map.type = 'importmap';
    map.textContent = JSON.stringify({ imports: imports });
    document.head.appendChild(map);
    if (!window.$) window.$ = jq;
    // import() in a function of its own: a browser without it still runs the text steps.
    return new Function('s', 'return import(s)')(b.scheme + b.entry).then(function (m) { return m.Drawer; });
  }

  // A player's picture: its colour and initial (CodinGame shows the player's avatar).
  function avatar(name, colour) {
    var c = document.createElement('canvas');
    c.width = c.height = 128;
    var g = c.getContext('2d');
    g.fillStyle = colour;
    g.fillRect(0, 0, 128, 128);
    g.fillStyle = '#fff';
    g.font = 'bold 84px sans-serif';
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    g.fillText(String(name || '?').charAt(0).toUpperCase(), 64, 70);
    return c.toDataURL('image/png');
  }

  // CodinGame's player colours by name, for the legend.
  var NAMES = { '#ff1d5c': 'red', '#22a1e4': 'blue', '#ff8f16': 'orange', '#6ac371': 'green', '#9975e2': 'purple', '#3ac5ca': 'cyan', '#de6ddf': 'pink', '#ff0000': 'red' };

  function el(tag, parent, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // Draws D's game beside the text steps; `ui` is the text viewer: show(k) shows step k without
  // moving the picture, graphic() hands it the play button, recolour(fills, names) gives the
  // seats the game's colours. Returns what the text viewer tells of its steps.
  function mount(D, ui) {
    var V = D.view;
    var viewer = document.getElementById('viewer');
    var note = el('p', null, { id: 'sdk-note', 'class': 'note' });
    viewer.parentNode.insertBefore(note, viewer);
    var box = el('div', null, { id: 'sdk', 'class': 'sdk' });
    box.hidden = true;
    viewer.parentNode.insertBefore(box, viewer);
    var ctl = { active: false, step: function () {}, toggle: function () {} };
    function asText(why) {
      if (ctl.active) return;
      note.textContent = 'The game is shown as text steps: ' + why;
      box.hidden = true;
      document.body.setAttribute('data-sdk', 'text');
    }
    if (!V) {
      asText('its replay data was written by an arbiter that did not draw SDK games (`arbiter report DIR` writes it again).');
      return ctl;
    }
    if (!V.frames.length) {
      asText('its record keeps no frame of the game\'s view.');
      return ctl;
    }
    document.body.setAttribute('data-sdk', 'loading');
    note.textContent = 'Loading the game\'s viewer\u2026';
    whenBundle(function (b) {
      if (b.none) return asText(b.none + '.');
      // Asked only of a game that has a viewer (a software WebGL makes Chromium warn).
      if (!webgl()) return asText('this browser cannot draw the game (it has no WebGL).');
      loadDrawer(b).then(function (Drawer) { draw(Drawer); }, function (e) {
        asText('its viewer failed to load (' + e + ').');
      });
    }, asText);

    var F = V.frames.length;
    var frames = V.frames.map(function (v) { return v.split('\n'); });
    var canvas = el('canvas', box, { id: 'sdk-canvas' });
    var bar = el('div', box, { 'class': 'controls sdk-bar' });
    var first = el('button', bar, { id: 'sdk-first', title: 'first frame' }, '\u21e4');
    var prev = el('button', bar, { id: 'sdk-prev', title: 'previous frame' }, '\u25c2');
    var playing = el('button', bar, { id: 'sdk-play', title: 'play / pause (space)' }, '\u25b6');
    var next = el('button', bar, { id: 'sdk-next', title: 'next frame' }, '\u25b8');
    var last = el('button', bar, { id: 'sdk-last', title: 'last frame' }, '\u21e5');
    var speed = el('select', bar, { id: 'sdk-speed', title: 'speed' });
    [['0.5', '\u00d70.5'], ['1', '\u00d71'], ['2', '\u00d72'], ['4', '\u00d74']].forEach(function (o) {
      var opt = el('option', speed, { value: o[0] }, o[1]);
      if (o[0] === '1') opt.selected = true;
    });
    var track = el('div', bar, { 'class': 'sdk-track' });
    var slider = el('input', track, { id: 'sdk-slider', type: 'range', min: '0', max: String(F - 1), value: '0', 'aria-label': 'frame' });
    var marks = el('div', track, { 'class': 'sdk-marks' });
    var where = el('span', bar, { id: 'sdk-where' });
    var options = el('div', box, { 'class': 'controls sdk-options' });
    var errors = el('pre', box, { id: 'sdk-errors', 'class': 'stderr' });
    errors.hidden = true;

    var drawer = null, cur = 0, progress = 1, timer = null, lastTime = null;

    // The last key frame drawn by step k.
    function frameOf(k) {
      var lo = 0, hi = F - 1;
      while (lo < hi) {
        var mid = (lo + hi + 1) >> 1;
        if (V.at[mid] <= k) lo = mid; else hi = mid - 1;
      }
      return lo;
    }
    function paint(j, p, spd) {
      drawer.update(j, p, spd);
      canvas.setAttribute('data-frame', j);
      slider.value = j;
      where.textContent = 'frame ' + j + ' of ' + (F - 1);
    }
    function pause() {
      if (timer) cancelAnimationFrame(timer);
      timer = null;
      playing.textContent = '\u25b6';
    }
    // Frame j, still; the text steps follow unless they moved it.
    function setFrame(j, fromSteps) {
      pause();
      cur = Math.max(0, Math.min(F - 1, j));
      progress = 1;
      paint(cur, 1, 0);
      if (!fromSteps) ui.show(V.at[cur]);
    }
    // As CodinGame's player plays: frame j animates from the one before it over its duration
    // (the game's own) divided by the speed, then the next begins.
    function tick(t) {
      if (lastTime === null) lastTime = t;
      var dt = t - lastTime;
      lastTime = t;
      if (progress >= 1) {
        if (cur >= F - 1) return pause();
        cur += 1;
        progress = 0;
        ui.show(V.at[cur]);
      }
      var duration = drawer.getFrameDuration(cur) || 1000;
      progress = Math.min(1, progress + dt * +speed.value / duration);
      paint(cur, progress, +speed.value);
      timer = requestAnimationFrame(tick);
    }
    function play() {
      if (timer) return pause();
      if (cur >= F - 1) setFrame(0);
      lastTime = null;
      playing.textContent = '\u2016';
      timer = requestAnimationFrame(tick);
    }

    function resize() {
      var w = box.clientWidth || 960;
      var ratio = (Drawer && Drawer.HEIGHT / Drawer.WIDTH) || 9 / 16;
      var dpr = window.devicePixelRatio || 1;
      canvas.style.width = w + 'px';
      canvas.style.height = Math.round(w * ratio) + 'px';
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(w * ratio * dpr);
    }
    var Drawer = null, colours = [];

    function draw(DrawerClass) {
      Drawer = DrawerClass;
      var pc = Drawer.playerColors;
      colours = D.bots.map(function (_, s) { return pc[s % pc.length]; });
      ui.recolour(colours, colours.map(function (c) { return NAMES[String(c).toLowerCase()] || c; }));
      box.hidden = false;
      resize();
      drawer = new Drawer();
      // For tools and a person's console: the game's Drawer of this page.
      window.arbiterSdk.drawer = drawer;
      drawer.addErrorListener(function (e) {
        errors.hidden = false;
        errors.textContent += 'the game\'s viewer: ' + (e.message || e) + (e.cause ? ' (' + (e.cause.message || e.cause) + ')' : '') + '\n';
      });
      drawer.init(canvas, canvas.width, canvas.height, colours, drawer.getDefaultOverSampling(), function () {});
      var agents = D.bots.map(function (name, s) {
        return { index: s, color: colours[s], name: name, avatar: avatar(name, colours[s]), type: 'DEFAULT', typeData: {} };
      });
      (function loaded() {
        if (!drawer.isReady()) return setTimeout(loaded, 20);
        drawer.initFrames(frames, agents);
        (function parsed() {
          if (drawer.loading || !drawer.frames) return setTimeout(parsed, 20);
          ready();
        })();
      })();
    }

    function ready() {
      ctl.active = true;
      ui.graphic();
      note.textContent = V.cut ? 'The last ' + V.cut + ' frames of this game are not drawn: their view data was past the record\'s cap (1 MiB a game).' : '';
      drawer.getOptions().forEach(function (o) {
        var label = el('label', options, {}, o.title.toLowerCase() + ' ');
        var sel = el('select', label);
        Object.keys(o.values).forEach(function (name) {
          var opt = el('option', sel, { value: name }, name.toLowerCase());
          if (o.get() === o.values[name]) opt.selected = true;
        });
        sel.onchange = function () { o.set(o.values[sel.value]); paint(cur, progress, 0); };
      });
      // The game's tooltips on the frame slider, as CodinGame marks them.
      var byFrame = {};
      (V.tips || []).forEach(function (t) {
        (byFrame[t[0]] = byFrame[t[0]] || []).push((D.bots[t[1]] === undefined ? '?' : D.bots[t[1]]) + ': ' + t[2]);
      });
      Object.keys(byFrame).forEach(function (j) {
        var m = el('span', marks, { 'class': 'sdk-mark', title: 'frame ' + j + '\n' + byFrame[j].join('\n') });
        m.style.left = (F > 1 ? 100 * j / (F - 1) : 0) + '%';
        m.onclick = function () { setFrame(+j); };
      });
      first.onclick = function () { setFrame(0); };
      prev.onclick = function () { setFrame(cur - (progress < 1 ? 0 : 1)); };
      next.onclick = function () { setFrame(cur + 1); };
      last.onclick = function () { setFrame(F - 1); };
      playing.onclick = play;
      slider.oninput = function () { setFrame(+slider.value); };
      var resizing = null;
      window.addEventListener('resize', function () {
        clearTimeout(resizing);
        resizing = setTimeout(function () {
          resize();
          drawer.init(canvas, canvas.width, canvas.height, colours, drawer.getDefaultOverSampling());
          paint(cur, progress, 0);
        }, 200);
      });
      var target = frameOf(ui.at());
      setFrame(target, true);
      if (target === F - 1 && F > 1) {
        // The engine's end screen starts only once the drawing loop has run on a frame before
        // it (CodinGame's player always draws those first): a page opened at the last frame
        // draws it all but finished for two turns of the loop, then finished.
        paint(target, 0.999, 0);
        var turns = 0;
        (function finish() {
          if (drawer.intro || turns++ < 2) return requestAnimationFrame(finish);
          if (cur === target && !timer) paint(target, 1, 0);
        })();
      }
      // Drawn at the next animation frame: tests and tools wait for this mark.
      document.body.setAttribute('data-sdk', 'drawn');
    }

    ctl.step = function (k) { if (ctl.active) setFrame(frameOf(k), true); };
    ctl.toggle = function () { if (ctl.active) play(); };
    return ctl;
  }

  window.arbiterSdk = { mount: mount };
})();
