"use client";

import * as Sheet from "@radix-ui/react-dialog";
import { Menu, X } from "lucide-react";
import { useState, type ReactNode } from "react";
import { useOrg } from "./org-context";
import { SidebarContent } from "./shell/sidebar";
import { Button } from "./ui/button";
import { overlayClass } from "./ui/dialog";
import { Toaster } from "./ui/toast";

/**
 * The console's frame: the sidebar (a sheet behind "Menu" on phones), a header with room for the global search box
 * (`search`), and the page. Pages render inside `<main id="main">` with the kit's spacing.
 */
export function DashboardShell({ children, search }: { children: ReactNode; search?: ReactNode }) {
  const org = useOrg();
  const [menuOpen, setMenuOpen] = useState(false);

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
            <Sheet.Root open={menuOpen} onOpenChange={setMenuOpen}>
              <Sheet.Trigger asChild>
                <Button size="sm" className="border-gray-500 bg-transparent text-current hover:bg-sidebar-accent hover:text-white md:hidden">
                  <Menu aria-hidden="true" />
                  Menu
                </Button>
              </Sheet.Trigger>
              <Sheet.Portal>
                <Sheet.Overlay className={overlayClass} />
                <Sheet.Content className="fixed inset-y-0 left-0 z-50 w-[min(20rem,85vw)] overflow-y-auto bg-sidebar shadow-xl" aria-describedby={undefined}>
                  <Sheet.Title className="sr-only">Menu</Sheet.Title>
                  <Sheet.Close asChild>
                    <Button size="sm" className="absolute top-3 right-3 border-gray-500 bg-transparent text-white hover:bg-sidebar-accent hover:text-white">
                      <X aria-hidden="true" />
                      Close menu
                    </Button>
                  </Sheet.Close>
                  <div className="pt-10">
                    <SidebarContent onNavigate={() => setMenuOpen(false)} />
                  </div>
                </Sheet.Content>
              </Sheet.Portal>
            </Sheet.Root>
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
