import { startApi, TestApi } from '@app/testing';
import { InstitutionsService } from '../src/admin/institutions.service';
import { contractViolations } from '../src/docs/contract-validation';

/**
 * OPENAPI_RESPONSE_VALIDATION=fail (set for every e2e file by libs/testing): an answer that the
 * OpenAPI document does not describe never reaches the client, and the file fails (contract-guard).
 */
describe('OpenAPI contract check (OPENAPI_RESPONSE_VALIDATION=fail)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('runs in the e2e suites', () => {
    expect(process.env.OPENAPI_RESPONSE_VALIDATION).toBe('fail');
  });

  it('a right answer goes out unchanged', async () => {
    const res = await api.http
      .get('/admin/api/v1/institutions?limit=1')
      .set('Authorization', `Bearer ${api.operatorToken}`);
    expect(res.status).toBe(200);
    expect(contractViolations).toEqual([]);
  });

  it('a deliberately wrong answer becomes a 500 naming the operation, status and field', async () => {
    const service = api.app.get(InstitutionsService);
    const wrong = jest
      .spyOn(service, 'list')
      .mockResolvedValue({ data: [{ id: 'not-a-uuid' }], pagination: { limit: 1 } } as never);
    try {
      const res = await api.http
        .get('/admin/api/v1/institutions?limit=1')
        .set('Authorization', `Bearer ${api.operatorToken}`);
      expect(res.status).toBe(500);
      expect(res.body.error).toBe('internal_error');
      expect(res.body.message).toContain('GET /admin/api/v1/institutions (status 200)');
      const found = contractViolations.splice(0);
      expect(found.map((v) => `${v.operation} ${v.status} ${v.path}`)).toEqual(
        expect.arrayContaining([
          'GET /admin/api/v1/institutions 200 /data/0',
          'GET /admin/api/v1/institutions 200 /pagination',
        ]),
      );
    } finally {
      wrong.mockRestore();
    }
  });
});
