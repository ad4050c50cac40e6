export default "three";
