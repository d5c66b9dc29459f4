import { Suspense } from "react";
import { Workspace } from "@/components/workspace";

export default function HomePage() {
  return (
    <Suspense>
      <Workspace />
    </Suspense>
  );
}
