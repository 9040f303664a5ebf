"use client";

import { Menu } from "lucide-react";
import dynamic from "next/dynamic";
import { useRef, useState, type ReactNode } from "react";
import { useOrg } from "./org-context";
import { SidebarContent } from "./shell/sidebar";
import { Button } from "./ui/button";
import { Toaster } from "./ui/toast";

const loadMobileMenu = () => import("./shell/mobile-menu");
// The phone menu's sheet (Radix Dialog) is fetched when it is first opened, not with every page.
const MobileMenu = dynamic(loadMobileMenu, { ssr: false });

/**
 * The console's frame: the sidebar (a sheet behind "Menu" on phones), a header with room for the global search box
 * (`search`), and the page. Pages render inside `<main id="main">` with the kit's spacing.
 */
export function DashboardShell({ children, search }: { children: ReactNode; search?: ReactNode }) {
  const org = useOrg();
  const [menuOpen, setMenuOpen] = useState(false);
  const [menuUsed, setMenuUsed] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);

  return (
    <>
      <a
        href="#main"
        className="absolute -left-[999px] top-0 z-[100] rounded bg-card px-3 py-2 focus:left-2 focus:top-2"
      >
        Skip to content
      </a>
      <div className="min-h-dvh md:grid md:grid-cols-[15rem_minmax(0,1fr)]">
        <aside aria-label="Console" className="hidden bg-sidebar md:block">
          <div className="sticky top-0 max-h-dvh overflow-y-auto">
            <SidebarContent />
          </div>
        </aside>
        <div className="flex min-w-0 flex-col">
          <header
            className={
              search
                ? "sticky top-0 z-40 flex h-14 items-center gap-3 border-b border-border bg-card px-3 md:px-8"
                : "sticky top-0 z-40 flex h-14 items-center gap-3 bg-sidebar px-3 text-white md:hidden"
            }
          >
            <Button
              ref={menuButton}
              size="sm"
              className="border-gray-500 bg-transparent text-current hover:bg-sidebar-accent hover:text-white md:hidden"
              aria-haspopup="dialog"
              aria-expanded={menuOpen}
              onPointerEnter={() => void loadMobileMenu()}
              onClick={() => {
                setMenuUsed(true);
                setMenuOpen(true);
              }}
            >
              <Menu aria-hidden="true" />
              Menu
            </Button>
            {menuUsed && (
              <MobileMenu
                open={menuOpen}
                onOpenChange={setMenuOpen}
                onCloseAutoFocus={(event) => {
                  event.preventDefault();
                  menuButton.current?.focus();
                }}
              />
            )}
            <span className="min-w-0 truncate font-semibold md:hidden">{org.name}</span>
            {/* The global search box ("find a customer") goes here, on every page. */}
            {search && <div className="ml-auto min-w-0 flex-1 md:ml-0 md:max-w-xl">{search}</div>}
          </header>
          <main id="main" className="w-full max-w-[75rem] min-w-0 flex-1 px-4 py-4 sm:px-8 sm:py-6">
            {children}
          </main>
        </div>
      </div>
      <Toaster />
    </>
  );
}
