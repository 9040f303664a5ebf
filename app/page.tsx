export default function HomePage() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", padding: 32 }}>
      <h1>Outbound AI Calling</h1>
      <p>
        API reference: <a href="/docs">/docs</a> · OpenAPI document: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>
      </p>
    </main>
  );
}
