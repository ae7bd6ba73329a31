import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "weather", version: "1.4.2" });
const API_BASE = "https://api.weather.gov";
const USER_AGENT = "weather-app/1.0";

server.tool("get-forecast", { latitude: z.number(), longitude: z.number() }, async ({ latitude, longitude }) => {
  const token = process.env.WEATHER_API_TOKEN ?? "";
  const res = await fetch(`${API_BASE}/points/${latitude},${longitude}`, {
    headers: { "User-Agent": USER_AGENT, Authorization: `Bearer ${token}` },
  });
  const etag = res.headers.get("etag"); // e.g. W/"5d41402abc4b2a76b9719d911017c592"
  return { content: [{ type: "text", text: JSON.stringify(await res.json()) }], etag };
});

await server.connect(new StdioServerTransport());
