"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { cn } from "../ui/cn";
import { useOrg, useOrgPath } from "../org-context";
import { SignOutButton } from "../sign-out-button";
import { navItems } from "./nav-items";

/** Brand, organization switcher, the main navigation and who is signed in: the desktop sidebar and the phone menu. */
export function SidebarContent({ onNavigate }: { onNavigate?: () => void }) {
  const org = useOrg();
  const path = useOrgPath();
  const pathname = usePathname();
  const router = useRouter();
  const isCurrent = (href: string) => (href === path() ? pathname === href : pathname === href || pathname.startsWith(`${href}/`));

  return (
    <div className="flex min-h-full flex-col gap-4 px-3 py-4 text-sidebar-foreground">
      <div className="px-2 font-bold text-white">Outbound AI Calling</div>
      <div className="flex flex-col gap-1 px-2">
        <label htmlFor="org-switcher" className="text-xs text-gray-300">
          Organization
        </label>
        {org.organizations.length > 1 ? (
          <select
            id="org-switcher"
            value={org.orgId}
            onChange={(event) => router.push(`/${encodeURIComponent(event.target.value)}`)}
            className="w-full min-h-9 rounded-md border border-gray-600 bg-sidebar-accent px-2 text-gray-50"
          >
            {org.organizations.map((o) => (
              <option key={o.orgId} value={o.orgId}>
                {o.name}
              </option>
            ))}
          </select>
        ) : (
          <div id="org-switcher" className="font-semibold text-white">
            {org.name}
          </div>
        )}
      </div>
      <nav aria-label="Main">
        <ul className="flex flex-col gap-0.5">
          {navItems(org, path).map((item) => {
            const current = isCurrent(item.href);
            return (
              <li key={item.href}>
                <Link
                  href={item.href}
                  aria-current={current ? "page" : undefined}
                  onClick={onNavigate}
                  className={cn(
                    "block rounded-md px-2.5 py-2 text-sidebar-foreground no-underline hover:bg-sidebar-accent hover:text-white",
                    current && "bg-sidebar-active font-semibold text-white",
                  )}
                >
                  {item.label}
                </Link>
              </li>
            );
          })}
          <li>
            <a href="/docs" className="block rounded-md px-2.5 py-2 text-sidebar-foreground no-underline hover:bg-sidebar-accent hover:text-white">
              API reference
            </a>
          </li>
        </ul>
      </nav>
      <div className="mt-auto flex flex-col gap-2 px-2 text-sm text-gray-300">
        <div className="break-all">{org.email}</div>
        <div>
          Role: <strong className="text-white">{org.role}</strong>
          {org.operator && (
            <>
              {" "}
              · <strong className="text-white">operator</strong>
            </>
          )}
        </div>
        <Link href={path("/account")} onClick={onNavigate} className="text-sidebar-foreground underline hover:text-white">
          Account
        </Link>
        <SignOutButton className="w-full border-gray-500 bg-transparent text-gray-50 hover:bg-sidebar-accent hover:text-white" />
      </div>
    </div>
  );
}
