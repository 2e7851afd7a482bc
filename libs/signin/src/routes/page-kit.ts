// One way to declare a page's endpoints, each at the literal path the host's table names: its GET (`view`, its
// query checked before the page is opened, so `lang` reaches the locale), its form posts (`form`: act, then back
// to the page with a 303) and its script's JSON calls (`call`: the answer as JSON). Every post runs `guard` as the
// endpoint's `open`, before the body's schema, so a forged post is refused (403) before a malformed one (400).
// `browserKit` binds the kit to a sign-in flow (libs/signin's Browser).
import { type EndpointDoc, type PageEndpoint, type PageRequest, pageEndpoint } from '@svc/platform';
import type { Response } from 'express';
import type { ZodType } from 'zod';
import type { Site } from '../site';
import { type Browser, csrfValid, PageError } from './browser';

/** Loads what a page's request acts on (its flow, target, session); a post's also checks CSRF and Origin. */
export type OpenPage<C> = (req: PageRequest<unknown>, res: Response) => Promise<C>;

/** What a handler gets: what `open` or `guard` loaded, the request (body and query checked), the response. */
type Handler<C, B, R, Q = PageRequest['query']> = (
  opened: C,
  req: PageRequest<B, Q>,
  res: Response,
) => Promise<R> | R;

/** The JSON calls of a page's script: up to 32 KiB. */
const JSON_CALL = { limit: 32 * 1024 } as const;

export interface PostKit<C> {
  /**
   * A form post: `act` changes what `guard` loaded, then `back` answers 303 to the page; unless `act` answered
   * itself (a redirect to the client).
   */
  form<B>(path: string, schema: ZodType<B>, act: Handler<C, B, void>): PageEndpoint<B, C>;
  /** A call of the page's script (its body schema and answers' `doc`): answers what `answer` returns, as JSON. */
  call<B>(
    path: string,
    spec: { schema: ZodType<B>; doc?: EndpointDoc },
    answer: Handler<C, B, unknown>,
  ): PageEndpoint<B, C>;
}

export interface PageKit<C> extends PostKit<C> {
  /** The page's GET with its query (`pageQuery`, or one extending it): `show` answers with what `open` loaded. */
  view<Q extends PageRequest['query']>(
    path: string,
    query: ZodType<Q>,
    show: Handler<C, undefined, void, Q>,
  ): PageEndpoint<undefined, undefined, Q>;
}

export interface PostKitOptions<C> {
  /** A post's open: loads and checks the CSRF token and Origin. */
  guard: OpenPage<C>;
  /** After a form post: saves what it changed and redirects (303) to the page. */
  back(opened: C, res: Response): Promise<void>;
}

/** The posts of a page. */
export function postKit<C>({ guard, back }: PostKitOptions<C>): PostKit<C> {
  return {
    form: (path, schema, act) =>
      pageEndpoint({
        method: 'POST',
        path,
        body: { kind: 'form', schema },
        noStore: false,
        open: guard,
        page: async (req, res, opened) => {
          await act(opened, req, res);
          if (!res.headersSent) await back(opened, res);
        },
      }),
    call: (path, { schema, doc }, answer) =>
      pageEndpoint({
        method: 'POST',
        path,
        body: { kind: 'json', schema, ...JSON_CALL },
        noStore: false,
        doc,
        open: guard,
        page: async (req, res, opened) => {
          res.json(await answer(opened, req, res));
        },
      }),
  };
}

/** A page's GET and posts. */
export function pageKit<C>(options: PostKitOptions<C> & { open: OpenPage<C> }): PageKit<C> {
  const { open } = options;
  return {
    ...postKit(options),
    view: (path, query, show) =>
      pageEndpoint({
        method: 'GET',
        path,
        body: { kind: 'none' },
        query,
        noStore: false,
        // Opened in the handler, after the query is checked: a bad query changes nothing, `lang` picks the locale.
        page: async (req, res) => show(await open(req, res), req, res),
      }),
  };
}

/**
 * The kit of a sign-in flow's page: `load` opens it; a post is guarded by `guard`, by default `load` then the
 * flow's CSRF token and Origin (403 sessionExpired); back saves the flow and goes to the target's page.
 */
export function browserKit<K extends string, P extends Browser<K>>(
  site: Site<K>,
  load: OpenPage<P>,
  guard: OpenPage<P> = async (req, res) => {
    const b = await load(req, res);
    if (!csrfValid(site, req, b.flow)) throw new PageError('sessionExpired');
    return b;
  },
): PageKit<P> {
  return pageKit({
    open: load,
    guard,
    back: async (b, res) => {
      await b.save();
      res.redirect(303, b.target.base);
    },
  });
}
