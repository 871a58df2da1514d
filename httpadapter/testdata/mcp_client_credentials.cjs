// The official TypeScript MCP SDK's client, as an integrator would run it:
// with a client id and secret alone (ClientCredentialsProvider), it connects
// to ScopeKit's MCP endpoint, calls a tool, waits past the access token's
// lifetime and calls it again. It prints one JSON line: the requests it made
// to the token endpoint, the 401 answers it got, the discovery documents it
// fetched, the tools' answers and the server's capabilities.
// Run by TestMCPTypeScriptClientCredentials (mcpclients_test.go):
//   NODE_PATH=PREFIX/node_modules node mcp_client_credentials.cjs MCP_URL CLIENT_ID CLIENT_SECRET TOOL WAIT_MS
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ClientCredentialsProvider } = require('@modelcontextprotocol/sdk/client/auth-extensions.js');

async function main() {
  const [url, clientId, clientSecret, tool, waitMs] = process.argv.slice(2);
  const seen = { tokens: 0, unauthorized: 0, discovery: [] };
  const countingFetch = async (input, init) => {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    const res = await fetch(input, init);
    if (path === '/oauth/token') {
      seen.tokens++;
    } else if (path.startsWith('/.well-known/')) {
      seen.discovery.push(path + ' ' + res.status);
    } else if (res.status === 401) {
      seen.unauthorized++;
    }
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    authProvider: new ClientCredentialsProvider({ clientId, clientSecret }),
    fetch: countingFetch,
  });
  const client = new Client({ name: 'scopekit-typescript-test', version: '1.0.0' });
  await client.connect(transport);
  const results = [];
  const errors = [];
  for (let i = 0; i < 2; i++) {
    if (i > 0) {
      await new Promise((resolve) => setTimeout(resolve, Number(waitMs)));
    }
    const res = await client.callTool({ name: tool, arguments: { query: 'firewall' } });
    results.push(res.structuredContent);
    errors.push(Boolean(res.isError));
  }
  const capabilities = client.getServerCapabilities();
  await client.close();
  console.log(JSON.stringify({ ...seen, results, errors, capabilities }));
}

main().catch((err) => {
  console.error((err && err.stack) || String(err));
  process.exit(1);
});
