# The Sluice Kafka gateway (lib/kafka/main.ts) as a container image.
#
# Build context: the directory infra/sluice-kafka-gateway.ts stages at synth time, holding this
# file and gateway.mjs, the gateway bundled into one file by the local esbuild (AWS SDK included).
# `cdk deploy` builds and pushes it with Docker or Finch; no npm install happens in the image.
FROM node:22-slim
ENV NODE_ENV=production
WORKDIR /app
COPY gateway.mjs ./
USER node
EXPOSE 9092
# The gateway stops accepting, finishes in-flight requests and closes on SIGTERM (ECS's stop signal).
STOPSIGNAL SIGTERM
CMD ["node", "gateway.mjs"]
