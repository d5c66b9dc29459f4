import { AlertTriangle, Loader2 } from "lucide-react";
import type { ReactNode } from "react";

export function LoadingState({ label }: { label: string }) {
  return (
    <div className="state-block" role="status">
      <Loader2 className="spin" size={18} aria-hidden />
      <span>{label}</span>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state-block empty">
      <p className="state-title">{title}</p>
      {children ? <div className="muted">{children}</div> : null}
    </div>
  );
}

export function ErrorState({
  title,
  message,
  action,
}: {
  title: string;
  message: string;
  action?: { label: string; onClick: () => void };
}) {
  return (
    <div className="state-block error" role="alert">
      <AlertTriangle size={18} aria-hidden />
      <div>
        <p className="state-title">{title}</p>
        <p className="muted break">{message}</p>
        {action ? (
          <button type="button" className="button" onClick={action.onClick}>
            {action.label}
          </button>
        ) : null}
      </div>
    </div>
  );
}
