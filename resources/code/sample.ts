// A small typed client for a paginated JSON API, with retries on rate limits and
// server errors, and an async iterator that walks every page.

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Invoice {
  id: string;
  customerId: string;
  status: "draft" | "open" | "paid" | "void";
  amountDue: number;
  currency: string;
  issuedAt: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly path: string,
    message: string,
  ) {
    super(`${status} on ${path}: ${message}`);
    this.name = "ApiError";
  }
}

export interface ClientOptions {
  baseUrl: string;
  token: string;
  maxRetries?: number;
  fetchImpl?: typeof fetch;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

export class ApiClient {
  private readonly maxRetries: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.maxRetries = options.maxRetries ?? 3;
    this.fetchImpl = options.fetchImpl ?? fetch;
  }

  async get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
    const url = new URL(path, this.options.baseUrl);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, value);
    }

    for (let attempt = 0; ; attempt++) {
      const response = await this.fetchImpl(url, {
        headers: {
          Authorization: `Bearer ${this.options.token}`,
          Accept: "application/json",
        },
      });
      if (response.ok) return (await response.json()) as T;

      const retryable = response.status === 429 || response.status >= 500;
      if (!retryable || attempt >= this.maxRetries) {
        const body = await response.text();
        throw new ApiError(response.status, url.pathname, body.slice(0, 200));
      }
      const retryAfter = Number(response.headers.get("Retry-After"));
      const delay = Number.isFinite(retryAfter) && retryAfter > 0
        ? retryAfter * 1000
        : 250 * 2 ** attempt + Math.random() * 100;
      await sleep(delay);
    }
  }

  async *paginate<T>(path: string, pageSize = 100): AsyncGenerator<T, void, undefined> {
    let cursor: string | undefined;
    do {
      const page: Page<T> = await this.get<Page<T>>(path, {
        limit: String(pageSize),
        cursor,
      });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
}

export async function outstandingByCustomer(client: ApiClient): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  for await (const invoice of client.paginate<Invoice>("/v1/invoices")) {
    if (invoice.status !== "open") continue;
    totals.set(invoice.customerId, (totals.get(invoice.customerId) ?? 0) + invoice.amountDue);
  }
  return new Map([...totals].sort(([, a], [, b]) => b - a));
}
