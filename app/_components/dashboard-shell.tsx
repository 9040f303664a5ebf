"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { useOrg, useOrgPath } from "./org-context";
import { SignOutButton } from "./sign-out-button";

type NavItem = { href: string; label: string; show: boolean };

export function DashboardShell({ children }: { children: ReactNode }) {
  const org = useOrg();
  const path = useOrgPath();
  const pathname = usePathname();
  const router = useRouter();
  const [menuOpen, setMenuOpen] = useState(false);

  const items: NavItem[] = [
    { href: path(), label: "Overview", show: true },
    { href: path("/agents"), label: "Agents", show: true },
    { href: path("/conversations"), label: "Conversations", show: true },
    { href: path("/import"), label: "Import contacts", show: org.role === "admin" },
    { href: path("/credits"), label: "Credits", show: true },
    { href: path("/webhooks"), label: "Webhooks", show: true },
    { href: path("/jobs"), label: "Jobs", show: org.role === "admin" || org.operator },
    { href: path("/api-keys"), label: "API keys", show: org.role === "admin" },
    { href: path("/members"), label: "Members", show: true },
  ];
  const isCurrent = (href: string) => (href === path() ? pathname === href : pathname === href || pathname.startsWith(`${href}/`));

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="topbar">
        <span className="brand">{org.name}</span>
        <button
          type="button"
          className="btn btn-small"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen((open) => !open)}
        >
          {menuOpen ? "Close menu" : "Menu"}
        </button>
      </div>
      <div className="shell">
        <aside id="sidebar" className={`sidebar${menuOpen ? " open" : ""}`} aria-label="Console">
          <div className="brand">Outbound AI Calling</div>
          <div>
            <label htmlFor="org-switcher">Organization</label>
            {org.organizations.length > 1 ? (
              <select
                id="org-switcher"
                value={org.orgId}
                onChange={(event) => router.push(`/${encodeURIComponent(event.target.value)}`)}
              >
                {org.organizations.map((o) => (
                  <option key={o.orgId} value={o.orgId}>
                    {o.name}
                  </option>
                ))}
              </select>
            ) : (
              <div id="org-switcher">{org.name}</div>
            )}
          </div>
          <nav aria-label="Main">
            <ul className="nav">
              {items
                .filter((item) => item.show)
                .map((item) => (
                  <li key={item.href}>
                    <Link href={item.href} aria-current={isCurrent(item.href) ? "page" : undefined} onClick={() => setMenuOpen(false)}>
                      {item.label}
                    </Link>
                  </li>
                ))}
              <li>
                <a href="/docs">API reference</a>
              </li>
            </ul>
          </nav>
          <div className="sidebar-footer">
            <span>
              {org.email}
              <br />
              Role: <strong>{org.role}</strong>
              {org.operator && (
                <>
                  {" "}
                  · <strong>operator</strong>
                </>
              )}
              <br />
              <Link href={path("/account")}>Account</Link>
            </span>
            <SignOutButton className="btn btn-small" />
          </div>
        </aside>
        <main id="main" className="main">
          {children}
        </main>
      </div>
    </>
  );
}
