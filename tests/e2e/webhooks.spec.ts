import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { expect, openOrgPage, signIn, test } from "./fixtures";

type Received = { headers: IncomingHttpHeaders; body: string };

/** A local receiver on loopback (embedded mode allows loopback URLs). */
let receiver: Server;
const received: Received[] = [];

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { "content-type": "text/plain" }).end("thanks");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});

test.afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

test("an admin adds a webhook endpoint, sends a test event to a local receiver, and sees it in the delivery log", async ({ page, snap }) => {
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/calls`;
  await signIn(page, "admin");
  await openOrgPage(page, "/webhooks");
  await page.getByLabel("URL").fill(url);
  await page.getByLabel("Description").fill("e2e receiver");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const secret = (await page.getByTestId("webhook-secret-value").textContent())!.trim();
  expect(secret).toMatch(/^whsec_/);
  await snap("webhooks");

  await page.getByRole("link", { name: /Open the endpoint/ }).click();
  await expect(page.getByRole("heading", { name: "Webhook endpoint" })).toBeVisible();
  await expect(page.getByText("No deliveries yet")).toBeVisible();
  await page.getByLabel("Sample payload of agent").selectOption({ label: "Link Booking Agent" });
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect(page.getByTestId("test-event-result")).toContainText("Test event delivered (HTTP 200)");

  // The receiver got one signed POST that the standardwebhooks library verifies with the revealed secret.
  expect(received).toHaveLength(1);
  const [delivery] = received;
  const payload = new Webhook(secret).verify(delivery!.body, {
    "webhook-id": String(delivery!.headers["webhook-id"]),
    "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]),
    "webhook-signature": String(delivery!.headers["webhook-signature"]),
  }) as { agentName?: string };
  expect(payload.agentName).toBe("Link Booking Agent");

  const row = page.getByTestId("delivery-row").first();
  await expect(row).toContainText("Test event");
  await expect(row).toContainText("Succeeded");
  await row.getByRole("button", { name: "Attempts" }).click();
  await expect(page.getByTestId("attempts").getByRole("row")).toHaveCount(2);
  await expect(page.getByTestId("attempts")).toContainText("200");
  await expect(page.getByTestId("attempts")).toContainText("thanks");
  await snap("webhook-endpoint");

  // Call results by default; number health changes when asked for (docs/webhooks.md "Number health events").
  await expect(page.getByLabel("Call results")).toBeChecked();
  await expect(page.getByLabel("Number health changes")).not.toBeChecked();
  await page.getByLabel("Number health changes").check();
  // The save refetches the endpoint, which remounts the form with the stored values: the notice must outlive that.
  const refetched = page.waitForResponse((response) => response.url().includes("webhooks.getEndpoint") && response.request().method() === "GET");
  await page.getByRole("button", { name: "Save endpoint" }).click();
  await refetched;
  await expect(page.getByLabel("Number health changes")).toBeChecked();
  await expect(page.getByText("Saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Number health changes")).toBeChecked();
  await expect(page.getByLabel("Call results")).toBeChecked();
});
