import { useQuery } from '@tanstack/react-query';
import { jsonQuery } from '../../../lib/json-query';

/** The alerts that fired (open and past), refreshed every minute: the collector evaluates after each snapshot. */
export const useAlerts = () => useQuery({ ...jsonQuery('/api/alerts', {}), refetchInterval: 60_000 });

/** Each rule's threshold and hold time. */
export const useAlertSettings = () => useQuery(jsonQuery('/api/alerts/settings'));
