"use client";

import * as Sheet from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { Button } from "../ui/button";
import { overlayClass } from "../ui/overlay";
import { SidebarContent } from "./sidebar";

/** The sidebar as a sheet from the left on phones; loaded when "Menu" is first pressed. */
export default function MobileMenu({ open, onOpenChange, onCloseAutoFocus }: { open: boolean; onOpenChange: (open: boolean) => void; onCloseAutoFocus: (event: Event) => void }) {
  return (
    <Sheet.Root open={open} onOpenChange={onOpenChange}>
      <Sheet.Portal>
        <Sheet.Overlay className={overlayClass} />
        <Sheet.Content
          className="fixed inset-y-0 left-0 z-50 w-[min(20rem,85vw)] overflow-y-auto bg-sidebar shadow-xl"
          aria-describedby={undefined}
          onCloseAutoFocus={onCloseAutoFocus}
        >
          <Sheet.Title className="sr-only">Menu</Sheet.Title>
          <Sheet.Close asChild>
            <Button size="sm" className="absolute top-3 right-3 border-gray-500 bg-transparent text-white hover:bg-sidebar-accent hover:text-white">
              <X aria-hidden="true" />
              Close menu
            </Button>
          </Sheet.Close>
          <div className="pt-10">
            <SidebarContent onNavigate={() => onOpenChange(false)} />
          </div>
        </Sheet.Content>
      </Sheet.Portal>
    </Sheet.Root>
  );
}
