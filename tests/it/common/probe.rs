//! A server's page measured in real headless Chromium. A test page of files cannot look into a
//! page of a server (another origin), so the test page fetches the page's own HTML from the
//! server (`--disable-web-security`) and shows it in a frame of its own origin, its links and
//! API calls still going to the server (`<base href>`). The frame's event stream is left out:
//! an open stream holds Chromium's virtual time still (no timer would fire); the page's script
//! fills it from the API at its start, as it does in a browser.

/// Opens `url` (a page of a server on `http://HOST:PORT`) in a frame `width` by `height` CSS
/// pixels; once `ready` (a JavaScript expression of `d`, the frame's document) holds, returns
/// what `report` (another, a value JSON can carry) gives. Fails with what the test page showed
/// when it never got ready.
pub fn probe(
    browser: &str,
    url: &str,
    (width, height): (u32, u32),
    ready: &str,
    report: &str,
) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let origin = url.split('/').take(3).collect::<Vec<_>>().join("/");
    let harness = dir.path().join("harness.html");
    std::fs::write(
        &harness,
        format!(
            r#"<html><body style="margin:0"><pre id="out"></pre><script>
const out = document.getElementById('out');
fetch({url:?}).then(r => r.text()).then(html => {{
  const f = document.createElement('iframe');
  f.style.cssText = 'border:0;width:{width}px;height:{height}px';
  const stub = '<base href="{origin}/"><script>window.EventSource = function () {{ return {{ addEventListener() {{}}, close() {{}} }}; }};<' + '/script>';
  f.srcdoc = html.replace('<head>', '<head>' + stub);
  f.onload = () => {{
    const d = f.contentDocument;
    (function wait() {{
      let ok = false;
      try {{ ok = {ready}; }} catch (e) {{}}
      if (!ok) return setTimeout(wait, 50);
      out.textContent = JSON.stringify({report});
      f.remove();
    }})();
  }};
  document.body.prepend(f);
}}).catch(e => {{ out.textContent = JSON.stringify({{ error: String(e) }}); }});
</script></body></html>"#
        ),
    )
    .unwrap();
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--disable-web-security",
            "--allow-file-access-from-files",
            "--virtual-time-budget=20000",
        ])
        .arg(format!("--window-size={},{}", width + 100, height + 100))
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg("--dump-dom")
        .arg(format!("file://{}", harness.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let json = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "the page never got ready ({ready}): {dom}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}
