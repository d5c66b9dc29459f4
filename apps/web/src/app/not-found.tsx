import Link from "next/link";

export default function NotFound() {
  return (
    <main className="centered-page">
      <div className="panel narrow">
        <h1>Page not found</h1>
        <p className="muted">There is nothing at this address.</p>
        <Link className="button primary" href="/">
          Back to sessions
        </Link>
      </div>
    </main>
  );
}
