import type { Metadata } from "next";
import { AdminInbox } from "@/components/admin-inbox";

export const metadata: Metadata = { title: "Inbox · Parley" };

export default function AdminPage() {
  return <AdminInbox />;
}
