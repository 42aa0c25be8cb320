// CloudWatch dashboard and alarms for one Sluice deployment. Alarms fire on any Lambda error or
// throttle, API 5xx, and DynamoDB throttling (a hot partition's lease/commit item is the first
// thing to throttle). The dashboard puts the log's own EMF metrics (namespace `Sluice`, emitted
// by lib/observability) next to the AWS service metrics.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE, SUBSCRIPTION_DIMENSION, SluiceMetric, SubscriptionMetric } from '../lib/observability/metric-names.js';
import type { SluiceFunctionName, SluiceHandlerName } from './routes.js';
import type { SluiceKafkaGateway } from './sluice-kafka-gateway.js';

export interface SluiceMonitoringProps {
  readonly functions: Readonly<Record<SluiceFunctionName, lambda.IFunction>>;
  readonly httpApi: apigwv2.IHttpApi;
  readonly table: dynamodb.ITable;
  /** Powertools `service` dimension the handlers emit their metrics under. */
  readonly serviceName: string;
  readonly dashboardName: string;
  /** Notified when any alarm fires and when it clears. @default - alarms without actions */
  readonly alarmTopic?: sns.ITopic;
}

const PERIOD = Duration.minutes(5);

/**
 * A subscription whose oldest undelivered record is this old is falling behind (or stuck on a
 * failing batch): Lambda's own advice for IteratorAge on stream triggers is to alarm well before
 * records reach the retention period; 10 minutes is far above a healthy tail (seconds) and far below it.
 */
export const ITERATOR_AGE_ALARM_MS = 10 * 60 * 1000;

export class SluiceMonitoring extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarms: cloudwatch.Alarm[] = [];
  private readonly alarmTopic?: sns.ITopic;
  private readonly serviceName: string;

  constructor(scope: Construct, id: string, props: SluiceMonitoringProps) {
    super(scope, id);
    this.alarmTopic = props.alarmTopic;
    this.serviceName = props.serviceName;
    const fns = Object.entries(props.functions) as [SluiceFunctionName, lambda.IFunction][];

    for (const [name, fn] of fns) this.functionAlarms(name, fn);
    this.alarm('api-5xx', props.httpApi.metricServerError({ period: PERIOD }), 'Sluice HTTP API 5xx responses');
    const tableThrottles = new cloudwatch.MathExpression({
      expression: 'FILL(r, 0) + FILL(w, 0)',
      usingMetrics: {
        r: props.table.metric('ReadThrottleEvents', { period: PERIOD, statistic: 'Sum' }),
        w: props.table.metric('WriteThrottleEvents', { period: PERIOD, statistic: 'Sum' }),
      },
      label: 'DynamoDB throttle events',
      period: PERIOD,
    });
    this.alarm('table-throttles', tableThrottles, 'Sluice metadata table throttled');

    const sluice = (metricName: string, statistic = 'Sum') =>
      new cloudwatch.Metric({
        namespace: METRIC_NAMESPACE,
        metricName,
        dimensionsMap: { service: props.serviceName },
        statistic,
        period: PERIOD,
      });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });
    this.dashboard.addWidgets(
      graph('Records in / out', [sluice(SluiceMetric.RecordsIn), sluice(SluiceMetric.RecordsOut)]),
      graph('Bytes in / out', [sluice(SluiceMetric.BytesIn), sluice(SluiceMetric.BytesOut)]),
      graph('Append latency (ms)', [sluice(SluiceMetric.AppendLatency, 'p50'), sluice(SluiceMetric.AppendLatency, 'p99')]),
      graph('Retriable refusals / retention', [
        sluice(SluiceMetric.RetriableRefusals),
        sluice(SluiceMetric.RetentionDeletedSegments),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Invocations', fns.map(([name, fn]) => fn.metricInvocations({ label: name, period: PERIOD }))),
      graph('Errors', fns.map(([name, fn]) => fn.metricErrors({ label: name, period: PERIOD }))),
      graph('Throttles', fns.map(([name, fn]) => fn.metricThrottles({ label: name, period: PERIOD }))),
      graph('Duration p99', fns.map(([name, fn]) => fn.metricDuration({ label: name, statistic: 'p99', period: PERIOD }))),
    );
    this.dashboard.addWidgets(
      graph('API requests / 4xx / 5xx', [
        props.httpApi.metricCount({ period: PERIOD }),
        props.httpApi.metricClientError({ period: PERIOD }),
        props.httpApi.metricServerError({ period: PERIOD }),
      ]),
      graph('API latency p99', [props.httpApi.metricLatency({ statistic: 'p99', period: PERIOD })]),
      graph('DynamoDB throttles', [tableThrottles]),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 6 }),
    );
  }

  /**
   * Dashboard rows for the Kafka gateway: its own metrics (requests, errors and latency per API,
   * open connections, produce windows, failed TLS handshakes; lib/kafka/gateway-metrics.ts) and the tasks' CPU and memory; with a load
   * balancer its connections, resets and healthy tasks and an alarm on unhealthy tasks; without
   * one the running tasks and their network bytes and an alarm when fewer than minCapacity run.
   */
  addKafkaGateway(gateway: SluiceKafkaGateway): void {
    const gatewayMetric = (metricName: string, statistic: string, label: string, period = PERIOD) =>
      new cloudwatch.Metric({ namespace: METRIC_NAMESPACE, metricName, dimensionsMap: { service: this.serviceName }, statistic, period, label });
    const perApi = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{${METRIC_NAMESPACE},api,service} MetricName="${metricName}" service="${this.serviceName}"', '${statistic}', ${PERIOD.toSeconds()})`,
        label,
        period: PERIOD,
      });
    this.dashboard.addWidgets(
      graph('Kafka requests by API', [perApi(SluiceMetric.KafkaRequests, 'Sum', 'requests')]),
      graph('Kafka request errors by API', [perApi(SluiceMetric.KafkaRequestErrors, 'Sum', 'errors')]),
      graph('Kafka request latency by API (ms)', [perApi(SluiceMetric.KafkaRequestLatency, 'Average', 'latency')]),
      graph('Kafka connections (all tasks)', [gatewayMetric(SluiceMetric.KafkaConnections, 'Sum', 'connections', Duration.minutes(1))]),
    );
    // The produce batcher's windows: how many intake objects the gateway writes, and what each
    // carries. Requests and partitions per window are what the gateway's cost per GB turns on.
    this.dashboard.addWidgets(
      graph('Kafka produce windows (intake objects)', [gatewayMetric(SluiceMetric.KafkaProduceWindows, 'Sum', 'windows')]),
      graph('Kafka produce window contents (mean requests / partitions)', [
        gatewayMetric(SluiceMetric.KafkaProduceWindowRequests, 'Average', 'requests'),
        gatewayMetric(SluiceMetric.KafkaProduceWindowPartitions, 'Average', 'partitions'),
      ]),
      graph('Kafka produce window write (ms)', [gatewayMetric(SluiceMetric.KafkaProduceWindowLatency, 'Average', 'PUT + commits')]),
      graph('Kafka TLS handshakes failed (gateway-terminated TLS)', [gatewayMetric(SluiceMetric.KafkaTlsHandshakeErrors, 'Sum', 'failed handshakes')]),
    );
    const resources = graph('Kafka gateway CPU / memory (%)', [
      gateway.service.metricCpuUtilization({ period: PERIOD }),
      gateway.service.metricMemoryUtilization({ period: PERIOD }),
    ]);
    if (gateway.loadBalancer && gateway.targetGroup) {
      const unhealthy = gateway.targetGroup.metrics.unHealthyHostCount({ period: PERIOD, statistic: 'Maximum' });
      this.alarm('kafka-gateway-unhealthy', unhealthy, 'Sluice Kafka gateway has unhealthy tasks');
      this.dashboard.addWidgets(
        resources,
        graph('Kafka connections (active / new)', [
          gateway.loadBalancer.metrics.activeFlowCount({ period: PERIOD, statistic: 'Average' }),
          gateway.loadBalancer.metrics.newFlowCount({ period: PERIOD }),
        ]),
        graph('Kafka gateway tasks (healthy / unhealthy)', [
          gateway.targetGroup.metrics.healthyHostCount({ period: PERIOD, statistic: 'Minimum' }),
          unhealthy,
        ]),
        graph('Kafka resets (client / load balancer / gateway)', [
          gateway.loadBalancer.metrics.tcpClientResetCount({ period: PERIOD }),
          gateway.loadBalancer.metrics.tcpElbResetCount({ period: PERIOD }),
          gateway.loadBalancer.metrics.tcpTargetResetCount({ period: PERIOD }),
        ]),
      );
      return;
    }
    // Without a load balancer the tasks' own numbers stand in for its: Container Insights counts
    // the running tasks and their network bytes. ECS stops a task whose health check fails (and
    // Cloud Map drops its record), so running below minCapacity means tasks failed or could not start.
    const insights = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: 'ECS/ContainerInsights',
        metricName,
        dimensionsMap: { ClusterName: gateway.cluster.clusterName, ServiceName: gateway.service.serviceName },
        statistic,
        period: PERIOD,
        label,
      });
    const running = insights('RunningTaskCount', 'Minimum', 'running');
    this.alarm(
      'kafka-gateway-tasks-missing',
      new cloudwatch.MathExpression({
        expression: `${gateway.minCapacity} - running`,
        usingMetrics: { running },
        label: `tasks missing below minCapacity (${gateway.minCapacity})`,
        period: PERIOD,
      }),
      'Sluice Kafka gateway runs fewer tasks than its minimum (failed health checks or tasks that cannot start)',
    );
    this.dashboard.addWidgets(
      resources,
      graph('Kafka gateway tasks (running / desired)', [running, insights('DesiredTaskCount', 'Maximum', 'desired')]),
      graph('Kafka gateway network (bytes/s in / out)', [
        insights('NetworkRxBytes', 'Average', 'in'),
        insights('NetworkTxBytes', 'Average', 'out'),
      ]),
    );
  }

  /** A function deployed after the construct (the subscriptions poller): its alarms and a row of graphs. */
  addFunction(name: SluiceHandlerName, fn: lambda.IFunction): void {
    this.functionAlarms(name, fn);
    this.dashboard.addWidgets(
      graph(`${name}: invocations / errors / throttles`, [
        fn.metricInvocations({ period: PERIOD }),
        fn.metricErrors({ period: PERIOD }),
        fn.metricThrottles({ period: PERIOD }),
      ]),
      graph(`${name}: duration p99`, [fn.metricDuration({ statistic: 'p99', period: PERIOD })]),
    );
  }

  /**
   * One subscription's row: offset lag and iterator age (maximum over the period), delivered
   * records, failures and records sent to onFailure, and an alarm when the iterator age stays over
   * ITERATOR_AGE_ALARM_MS for three periods of a minute.
   */
  addSubscription(subscription: string): void {
    const metric = (metricName: string, statistic: string, period = PERIOD) =>
      new cloudwatch.Metric({
        namespace: METRIC_NAMESPACE,
        metricName,
        dimensionsMap: { service: this.serviceName, [SUBSCRIPTION_DIMENSION]: subscription },
        statistic,
        period,
      });
    const alarm = new cloudwatch.Alarm(this, `subscription-${subscription}-iterator-age`, {
      metric: metric(SubscriptionMetric.IteratorAge, 'Maximum', Duration.minutes(1)),
      threshold: ITERATOR_AGE_ALARM_MS,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      // No data means no poller run reported: the poller's own error/throttle alarms cover that.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `Sluice subscription ${subscription}: oldest undelivered record older than ${ITERATOR_AGE_ALARM_MS / 60_000} minutes`,
    });
    this.notify(alarm);
    this.dashboard.addWidgets(
      graph(`${subscription}: offset lag (records)`, [metric(SubscriptionMetric.OffsetLag, 'Maximum')]),
      graph(`${subscription}: iterator age (ms)`, [metric(SubscriptionMetric.IteratorAge, 'Maximum')]),
      graph(`${subscription}: delivered`, [metric(SubscriptionMetric.DeliveredRecords, 'Sum'), metric(SubscriptionMetric.DeliveredBatches, 'Sum')]),
      graph(`${subscription}: failures / onFailure`, [metric(SubscriptionMetric.DeliveryFailures, 'Sum'), metric(SubscriptionMetric.OnFailureRecords, 'Sum')]),
    );
  }

  private functionAlarms(name: SluiceHandlerName, fn: lambda.IFunction): void {
    this.alarm(`${name}-errors`, fn.metricErrors({ period: PERIOD }), `Sluice ${name} function errors`);
    this.alarm(`${name}-throttles`, fn.metricThrottles({ period: PERIOD }), `Sluice ${name} function throttled`);
  }

  private alarm(id: string, metric: cloudwatch.IMetric, description: string): void {
    const alarm = new cloudwatch.Alarm(this, id, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
    });
    this.notify(alarm);
  }

  private notify(alarm: cloudwatch.Alarm): void {
    if (this.alarmTopic) {
      alarm.addAlarmAction(new SnsAction(this.alarmTopic));
      alarm.addOkAction(new SnsAction(this.alarmTopic));
    }
    this.alarms.push(alarm);
  }
}

function graph(title: string, left: cloudwatch.IMetric[]): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({ title, left, width: 6 });
}
