"use client";

import dynamic from "next/dynamic";
import { useRef, useState, type ReactNode } from "react";
import { Button, type ButtonProps } from "./button";

const loadDialog = () => import("./confirm-dialog");
// The Radix alert dialog is fetched when a confirmation is first asked for (or the pointer comes near the button),
// not with the page: most visits never open one.
const ConfirmDialog = dynamic(loadDialog, { ssr: false });

/**
 * A button that asks before it acts: a Radix alert dialog (focus moves to Cancel, Escape cancels, focus returns to
 * the button). `children` say what will happen.
 */
export function ConfirmButton({
  label,
  title,
  children,
  confirmLabel,
  onConfirm,
  disabled,
  variant = "danger",
  size = "sm",
  className,
}: {
  label: ReactNode;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  variant?: ButtonProps["variant"];
  size?: ButtonProps["size"];
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  const [asked, setAsked] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <Button
        ref={button}
        variant={variant}
        size={size}
        disabled={disabled}
        className={className}
        aria-haspopup="dialog"
        aria-expanded={open}
        onPointerEnter={() => void loadDialog()}
        onFocus={() => void loadDialog()}
        onClick={() => {
          setAsked(true);
          setOpen(true);
        }}
      >
        {label}
      </Button>
      {asked && (
        <ConfirmDialog
          open={open}
          onOpenChange={setOpen}
          title={title}
          confirmLabel={confirmLabel}
          onConfirm={onConfirm}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            button.current?.focus();
          }}
        >
          {children}
        </ConfirmDialog>
      )}
    </>
  );
}
