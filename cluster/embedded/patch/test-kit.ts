/** Test helpers of the patch tests: a Deployment to patch and its web container. */

/** A Deployment `web` with these containers in its Pod template. */
export function deployment(containers: unknown[]) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
    },
  };
}

/** A container with ports and env, the one most patches change. */
export const web = {
  name: 'web',
  image: 'nginx:1.25',
  ports: [{ containerPort: 80, protocol: 'TCP' }],
  env: [
    { name: 'MODE', value: 'prod' },
    { name: 'LOG', value: 'info' },
  ],
};
