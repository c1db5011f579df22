// check.mjs FILE: parses the Mermaid flowchart in FILE with the mermaid
// package (in a jsdom window, no browser) and prints its vertices (id,
// label with entity codes decoded, classes) and edges as JSON; a text
// Mermaid refuses exits 1 with the parser's message. Used by
// TestGraphMermaidParses in graphrender_test.go.
import { JSDOM } from 'jsdom';
import fs from 'fs';
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });
const text = fs.readFileSync(process.argv[2], 'utf8');
const decode = (s) => s
  .replace(/ﬂ°°(\d+)¶ß/g, (_, n) => String.fromCodePoint(Number(n)))
  .replace(/ﬂ°(\w+)¶ß/g, (_, n) => '&' + n + ';');
try {
  await mermaid.parse(text);
  const d = await mermaid.mermaidAPI.getDiagramFromText(text);
  const vertices = {};
  for (const [id, v] of d.db.getVertices()) vertices[id] = { text: decode(v.text), classes: v.classes };
  const edges = d.db.getEdges().map((e) => ({ from: e.start, to: e.end, stroke: e.stroke }));
  console.log(JSON.stringify({ type: d.type, vertices, edges }));
} catch (e) {
  console.error(String((e && e.message) || e));
  process.exit(1);
}
