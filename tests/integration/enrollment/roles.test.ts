import { describe, expect, it } from "vitest";
import { appCodeOfError } from "@/server/errors";
import { createTestAgent, createTestOrganization } from "../../factories";
import { apiKeyCaller, consoleCaller } from "../console/helpers";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();

describe("enrollment and cancel procedures check the role on the server", () => {
  it("refuse support staff and members; allow admins and API keys", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const contact = { agentId: agent.id, name: "Role Check", phoneNumber: "+12125550141" };
    for (const role of ["support", "member"] as const) {
      const caller = await consoleCaller(db, organization.id, role);
      await expect(caller.enrollment.enrollOne(contact).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
      await expect(caller.enrollment.enrollMany({ agentId: agent.id, contacts: [contact] }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
      await expect(caller.sequences.cancel({ referenceKey: "crm_ref", referenceValue: "x" }).catch(appCodeOfError)).resolves.toBe("FORBIDDEN");
    }
    const admin = await consoleCaller(db, organization.id, "admin");
    const enrolled = await admin.enrollment.enrollOne(contact);
    expect(enrolled.sequence.sequenceId).toMatch(/^call-sequence\./);
    await expect(admin.sequences.cancel({ referenceKey: "crm_ref", referenceValue: "x" })).resolves.toEqual({ success: true });
    const viaKey = await apiKeyCaller(db, apiKey).enrollment.enrollOne({ ...contact, phoneNumber: "+12125550142" });
    expect(viaKey.sequence.sequenceId).toMatch(/^call-sequence\./);
  });
});
