export const RTMP_PORT = 1935;
export const RTMPS_PORT = 443;
