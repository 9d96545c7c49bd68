import { describe, expect, it } from 'vitest';
import { acceptedOrigins, loadMcpConfig } from '../../mcp/config.js';

describe('MCP configuration', () => {
  it('MCP_ALLOW_DECISIONS is off unless set true; a bad value names the variable', () => {
    expect(loadMcpConfig({}).allowDecisions).toBe(false);
    expect(loadMcpConfig({ MCP_ALLOW_DECISIONS: 'true' }).allowDecisions).toBe(true);
    expect(() => loadMcpConfig({ MCP_ALLOW_DECISIONS: 'sometimes' })).toThrow(/^MCP_ALLOW_DECISIONS: must be true or false, got "sometimes"/);
  });

  it('MCP_ALLOWED_ORIGINS takes origins only, naming the one it refuses', () => {
    expect(loadMcpConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:3000/' }).allowedOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
    ]);
    for (const bad of ['app.example.com', 'https://app.example.com/path', 'ftp://files.example.com', '*']) {
      expect(() => loadMcpConfig({ MCP_ALLOWED_ORIGINS: bad })).toThrow(
        new RegExp(`^MCP_ALLOWED_ORIGINS: "${bad.replace(/[.*/]/g, '\\$&')}" is not an origin`),
      );
    }
  });

  it("the accepted origins: PUBLIC_URL's, the loopback names of a loopback PUBLIC_URL, and the configured ones", () => {
    expect([...acceptedOrigins('https://ops.example.com/', ['https://app.example.com'])]).toEqual(['https://ops.example.com', 'https://app.example.com']);
    expect([...acceptedOrigins('http://localhost:8080', [])].sort()).toEqual(['http://127.0.0.1:8080', 'http://[::1]:8080', 'http://localhost:8080']);
  });
});
