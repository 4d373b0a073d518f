#!/usr/bin/env node
// Headless-browser check that a report runs no script: .html and .md files (docs/development.md).
//
//   make browser-check                      (writes a hostile report, then runs this on it)
//   node tests/browser/check.js FILE [FILE ...]
//
// .html files are opened from disk (file://). .md files are rendered twice, with
// `marked` and with `markdown-it` ({html: true}), wrapped in a minimal HTML page,
// and each rendering is opened. For every page one line is printed:
//
//   FILE [renderer]: dialogs=N console_errors=N external_requests=N script_like_elements=N
//
// Exit status: 0 = all clean, 1 = some page had dialogs>0 or script_like_elements>0,
//              2 = usage / tool error (bad argument, browser failed, page failed to load).
//
// Environment: BROWSERCHECK_CHROME=/path/to/chrome overrides the browser binary
//              (default: @sparticuz/chromium, falling back to /usr/bin/chromium).
//              BROWSERCHECK_WAIT_MS (default 1500) is the wait after load.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

// Keep every temporary file (extracted Chromium, profiles, rendered pages) under
// this tool's own directory instead of /tmp. Must be set before the browser
// packages are loaded (they call os.tmpdir()).
const CACHE = path.join(__dirname, '.cache');
fs.mkdirSync(CACHE, { recursive: true });
process.env.TMPDIR = CACHE;

const WAIT_MS = Number(process.env.BROWSERCHECK_WAIT_MS || 1500);
const LOAD_TIMEOUT_MS = 20000;

function usage(msg) {
  if (msg) console.error(`check.js: ${msg}`);
  console.error('usage: node check.js FILE.html|FILE.md [FILE ...]');
  process.exit(2);
}

async function launchBrowser() {
  const puppeteer = require('puppeteer-core');
  const attempts = [];
  if (process.env.BROWSERCHECK_CHROME) {
    attempts.push({ name: process.env.BROWSERCHECK_CHROME, exe: async () => process.env.BROWSERCHECK_CHROME, args: ['--no-sandbox', '--disable-gpu'] });
  }
  attempts.push({
    name: '@sparticuz/chromium',
    exe: async () => (await import('@sparticuz/chromium')).default.executablePath(),
    args: null, // filled in lazily from the package
  });
  attempts.push({ name: '/usr/bin/chromium', exe: async () => '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });

  const errors = [];
  for (const a of attempts) {
    try {
      const executablePath = await a.exe();
      if (!executablePath || !fs.existsSync(executablePath)) throw new Error(`not found: ${executablePath}`);
      let args = a.args;
      if (!args) args = (await import('@sparticuz/chromium')).default.args;
      const userDataDir = fs.mkdtempSync(path.join(CACHE, 'profile-'));
      try {
        const browser = await puppeteer.launch({ executablePath, args, headless: 'shell', userDataDir, timeout: 60000 });
        return { browser, userDataDir };
      } catch (e) {
        fs.rmSync(userDataDir, { recursive: true, force: true });
        throw e;
      }
    } catch (e) {
      errors.push(`${a.name}: ${e.message.split('\n')[0]}`);
    }
  }
  throw new Error('could not launch a browser:\n  ' + errors.join('\n  '));
}

function wrapHtml(title, body, baseDir) {
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const base = pathToFileURL(baseDir + path.sep).href;
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><base href="${esc(base)}"><title>${esc(title)}</title></head>\n<body>\n${body}\n</body></html>\n`;
}

async function renderers() {
  const { marked } = await import('marked');
  const MarkdownIt = (await import('markdown-it')).default;
  const md = new MarkdownIt({ html: true });
  return [
    ['marked', (src) => marked.parse(src, { async: false })],
    ['markdown-it', (src) => md.render(src)],
  ];
}

// Runs inside the page: count script-like elements.
function countScriptLike() {
  const isJsUrl = (v) => /^javascript:/i.test(String(v).replace(/[\u0000-\u0020]/g, ''));
  let n = 0;
  for (const el of document.querySelectorAll('*')) {
    if (el.matches('script, iframe, object, embed')) { n++; continue; }
    let hit = false;
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith('on')) { hit = true; break; }
      if ((name === 'href' || name === 'src' || name === 'xlink:href' || name === 'action' || name === 'formaction') && isJsUrl(attr.value)) { hit = true; break; }
    }
    if (hit) n++;
  }
  return n;
}

async function checkPage(browser, url) {
  const page = await browser.newPage();
  const r = { dialogs: 0, console_errors: 0, external_requests: 0, script_like_elements: 0, error: null };
  try {
    page.on('dialog', (d) => { r.dialogs++; d.dismiss().catch(() => {}); });
    page.on('console', (m) => { if (m.type() === 'error') r.console_errors++; });
    page.on('pageerror', () => { r.console_errors++; }); // uncaught exceptions
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (req.isInterceptResolutionHandled()) return;
      const u = req.url();
      if (u.startsWith('file://') || u.startsWith('data:')) req.continue().catch(() => {});
      else { r.external_requests++; req.abort('blockedbyclient').catch(() => {}); }
    });
    await page.goto(url, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
    await new Promise((res) => setTimeout(res, WAIT_MS));
    r.script_like_elements = await page.evaluate(countScriptLike);
  } catch (e) {
    r.error = e.message.split('\n')[0];
  } finally {
    await page.close().catch(() => {});
  }
  return r;
}

async function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) usage();

  // Build the list of pages to open before starting the browser.
  const jobs = []; // { file, renderer, url }
  let rends = null;
  const renderDir = fs.mkdtempSync(path.join(CACHE, 'rendered-'));
  for (const [i, file] of files.entries()) {
    const abs = path.resolve(file);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isFile()) usage(`no such file: ${file}`);
    const ext = path.extname(abs).toLowerCase();
    if (ext === '.html' || ext === '.htm') {
      jobs.push({ file, renderer: 'html', url: pathToFileURL(abs).href });
    } else if (ext === '.md' || ext === '.markdown') {
      rends = rends || (await renderers());
      const src = fs.readFileSync(abs, 'utf8');
      for (const [name, render] of rends) {
        const out = path.join(renderDir, `${i}-${path.basename(abs)}.${name}.html`);
        fs.writeFileSync(out, wrapHtml(path.basename(abs), render(src), path.dirname(abs)));
        jobs.push({ file, renderer: name, url: pathToFileURL(out).href });
      }
    } else {
      usage(`unsupported file type (want .html or .md): ${file}`);
    }
  }

  const t0 = Date.now();
  let browser, userDataDir;
  try {
    ({ browser, userDataDir } = await launchBrowser());
  } catch (e) {
    console.error(`check.js: ${e.message}`);
    fs.rmSync(renderDir, { recursive: true, force: true });
    process.exit(2);
  }

  let flagged = false, failed = false;
  try {
    for (const job of jobs) {
      const r = await checkPage(browser, job.url);
      let line = `${job.file} [${job.renderer}]: dialogs=${r.dialogs} console_errors=${r.console_errors} external_requests=${r.external_requests} script_like_elements=${r.script_like_elements}`;
      if (r.error) { line += ` error=${JSON.stringify(r.error)}`; failed = true; }
      console.log(line);
      if (r.dialogs > 0 || r.script_like_elements > 0) flagged = true;
    }
  } finally {
    await browser.close().catch(() => {});
    fs.rmSync(renderDir, { recursive: true, force: true });
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  console.error(`# ${jobs.length} page(s) checked in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  process.exit(flagged ? 1 : failed ? 2 : 0);
}

main().catch((e) => { console.error(`check.js: ${e.stack || e}`); process.exit(2); });
