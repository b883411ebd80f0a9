// Runs the review app's script against a minimal fake DOM and a scripted host, then prints
// every message the app sent (one JSON document on stdout). Usage: node harness.js APP_HTML
"use strict";
const fs = require("fs");
const vm = require("vm");

const html = fs.readFileSync(process.argv[2], "utf8");
const script = html.match(/<script>([\s\S]*)<\/script>/)[1];

function element(id) {
  return { id, textContent: "", innerHTML: "", disabled: false, value: "", onclick: null,
           children: [], appendChild(c) { this.children.push(c); return c; } };
}
const elements = {};
const document = {
  getElementById(id) { return elements[id] || (elements[id] = element(id)); },
  createElement(tag) { return element(tag); },
  createTextNode(text) { return { text }; },
};
const sent = [];
let listener = null;
const window = {
  parent: { postMessage(msg) { sent.push(msg); } },
  addEventListener(kind, fn) { if (kind === "message") listener = fn; },
};
vm.runInNewContext(script, { window, document, setInterval() { return 1; }, clearInterval() {},
                             JSON, Promise, String });

const tick = () => new Promise((r) => setImmediate(r));
const reply = (id, result) => listener({ data: { jsonrpc: "2.0", id, result } });
const last = (method) => [...sent].reverse().find((m) => m.method === method);

(async () => {
  const draft = { title: "Export credit notes", description: "Credit notes follow invoices.",
                  acceptance_criteria: ["A CSV holds one row", "Totals match"] };
  reply(last("ui/initialize").id, {});
  await tick();
  listener({ data: { jsonrpc: "2.0", method: "ui/notifications/tool-result",
                     params: { structuredContent: { status: "awaiting-review", review_id: "REV-0123456789abcdef" } } } });
  await tick();
  const read = last("resources/read");
  reply(read.id, { contents: [{ text: JSON.stringify({ review_id: "REV-0123456789abcdef", status: "pending", draft }) }] });
  const poll = last("tools/call");
  reply(poll.id, { structuredContent: { review_id: "REV-0123456789abcdef", status: "pending" } });
  await tick(); await tick();
  const enabled = !elements.approve.disabled;
  document.getElementById("reason").value = "reads well";
  elements.approve.onclick();
  await tick();
  const resolve = last("tools/call");
  reply(resolve.id, { structuredContent: { status: "applied", wrote: true } });
  await tick(); await tick();
  process.stdout.write(JSON.stringify({
    sent, enabled_before_decision: enabled, title: elements.title.textContent,
    criteria: elements.draft.children.length, status: elements.status.textContent,
  }));
})();
