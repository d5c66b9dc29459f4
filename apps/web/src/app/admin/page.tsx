import type { Metadata } from "next";
import { Suspense } from "react";
import { AdminInbox } from "@/components/admin-inbox";

export const metadata: Metadata = { title: "Inbox · Parley" };

export default function AdminPage() {
  return (
    <Suspense>
      <AdminInbox />
    </Suspense>
  );
}
