// Drives itr-mcp with the official MCP TypeScript SDK's client over stdio:
// initialize, tools/list, then the calls given as JSON on argv[3], and
// prints one JSON object with what came back. Usage:
//   node tsclient.mjs ITR_MCP_BINARY REPO_DIR '[{"name":"resume","arguments":{}}]'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, dir, callsJSON] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: bin, args: ["-C", dir], stderr: "pipe", env: process.env });
const client = new Client({ name: "itr-ts-test", version: "1.0.0" });
const out = { calls: [] };
try {
  await client.connect(transport);
  out.server = client.getServerVersion();
  out.protocol = transport._protocolVersion ?? null;
  const tools = await client.listTools();
  out.tools = tools.tools.map((t) => t.name).sort();
  for (const call of JSON.parse(callsJSON)) {
    const res = await client.callTool(call);
    out.calls.push({ name: call.name, isError: !!res.isError, structured: res.structuredContent ?? null, text: (res.content ?? []).map((c) => c.text ?? "").join("\n") });
  }
  await client.close();
} catch (err) {
  out.error = String(err && err.stack ? err.stack : err);
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(out.error ? 1 : 0);
